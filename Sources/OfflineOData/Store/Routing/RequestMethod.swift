/// The HTTP method of a request to the store, decided once from the caller's text: every later
/// step (route, lane, read or write) asks this value rather than comparing strings again.
package enum RequestMethod: String, Sendable, CaseIterable {
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
        // The exact spelling first: upper-casing makes a new string, for each request.
        guard let method = RequestMethod(rawValue: text) ?? RequestMethod(rawValue: asciiUppercased(text)) else {
            throw ODataError(.misuse, "'\(text)' is not a request method the store takes (GET, POST, PUT, PATCH, MERGE or DELETE)")
        }
        self = method
    }

    /// Whether the request only reads; every other method writes.
    package var isRead: Bool { self == .get }
}
