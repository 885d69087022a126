import Glibc
@_spi(Tool) import OfflineOData

/// C strings that live for the whole process (version, status names), made once per text.
private let staticStrings = Protected<[String: UnsafeMutablePointer<CChar>]>([:])

/// A NUL-terminated copy of `text` that is never freed, for functions that return borrowed
/// static strings. Only a small fixed set of texts goes through here.
func staticCString(_ text: String) -> UnsafeMutablePointer<CChar>? {
    staticStrings.withLock { table in
        if let existing = table[text] { return existing }
        guard let copy = strdup(text) else { return nil }
        table[text] = copy
        return copy
    }
}

/// Copies `text` into a string the caller owns and releases with `ood_string_free`.
func ownedCString(_ text: String) -> UnsafeMutablePointer<CChar>? {
    strdup(text)
}
