/// The HTTP method of a request to the store, decided once from the caller's text: every later
/// step (route, lane, read or write, the request queue, upload, compaction, undo) asks this value
/// rather than comparing strings again. Its raw value is the wire text (`POST`), which is also
/// what the request queue stores and what C, Python and the tool show.
public enum RequestMethod: String, Sendable, CaseIterable, CustomStringConvertible {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    /// OData V2's partial update (V4 stores refuse it, as PATCH is V4's).
    case merge = "MERGE"
    case delete = "DELETE"

    /// The method `text` names, in any case (`get`, `Patch`).
    ///
    /// - Throws: ``ODataError/Code/misuse`` for any other method: the store answers OData reads
    ///   and writes only.
    package init(parsing text: String) throws(ODataError) {
        guard let method = Self.named(text) else {
            throw ODataError(.misuse, "'\(text)' is not a request method the store takes (GET, POST, PUT, PATCH, MERGE or DELETE)")
        }
        self = method
    }

    /// The method `text` names in any ASCII case, or nil; compares bytes, so no upper-cased copy
    /// is made for each request.
    package static func named(_ text: String) -> RequestMethod? {
        if let exact = RequestMethod(rawValue: text) { return exact }
        let given = text.utf8
        return allCases.first { method in
            let name = method.rawValue.utf8
            guard name.count == given.count else { return false }
            // Raw values are upper-case ASCII letters: folding the given byte's case bit is enough.
            return zip(name, given).allSatisfy { expected, byte in
                byte == expected || byte == expected | 0x20
            }
        }
    }

    /// The wire text, so that `"\(method) \(url)"` reads `POST Orders` in messages and logs.
    public var description: String { rawValue }

    /// Whether the request only reads; every other method writes.
    package var isRead: Bool { self == .get }
}
