/// Splitting qualified names (`Namespace.Name`) on their UTF-8 bytes: the validator does this
/// for every type reference, and `Character`-based string search is far slower.
enum QualifiedNames {
    /// The namespace (or alias) part before the last dot, nil when there is no dot.
    static func prefix(of name: String) -> Substring? {
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return name[..<dot]
    }

    /// The part from the last dot on (`.Name`), or the whole name when there is no dot.
    static func suffix(of name: String) -> Substring {
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return name[...] }
        return name[dot...]
    }

    static func contains(_ text: some StringProtocol, _ byte: UInt8) -> Bool {
        text.utf8.contains(byte)
    }
}
