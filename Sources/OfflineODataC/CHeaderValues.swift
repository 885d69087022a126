import Glibc
@_spi(Tool) import OfflineOData

/// The headers of an answer (or of a refusal), handed to C by name as borrowed strings.
///
/// A value is copied to C only when asked for, and the copy lives as long as this object, so an
/// answer nobody asks about costs no copies. The copies are kept under a lock: a result may be
/// read from several threads at once.
final class CHeaderValues: Sendable {
    let headers: [HTTPHeader]
    /// `Content-Type` when the headers lack it (an offline answer has its type, not its headers).
    let contentType: String?
    /// Lower-case name -> the value handed out (nil when the answer lacks the header).
    private let copies = Protected<[String: UnsafeMutablePointer<CChar>?]>([:])

    init(_ headers: [HTTPHeader], contentType: String? = nil) {
        self.headers = headers
        self.contentType = contentType
    }

    /// The value of the header `name`, compared without case (a repeated header's values joined
    /// with ", "), or nil when the answer has none.
    func value(_ name: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        let wanted = lowercased(String(cString: name))
        return copies.withLock { table -> UnsafePointer<CChar>? in
            if let kept = table[wanted] { return kept.map { UnsafePointer($0) } }
            var values = headers.filter { lowercased($0.name) == wanted }.map(\.value)
            if values.isEmpty, wanted == "content-type", let contentType { values = [contentType] }
            let copy = values.isEmpty ? nil : strdup(values.joined(separator: ", "))
            table[wanted] = copy
            return copy.map { UnsafePointer($0) }
        }
    }

    deinit {
        copies.withLock { table in
            for copy in table.values { free(copy) }
        }
    }

    /// Header names are ASCII and compared without case.
    private func lowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
