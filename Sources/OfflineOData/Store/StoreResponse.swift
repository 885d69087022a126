/// The answer to a request on a store, shaped as the service would answer it.
public struct StoreResponse: Sendable, Equatable {
    /// The HTTP status the service would give: 200, 201, 204.
    public var status: Int
    /// `application/json` (with the dialect's parameters) or `text/plain` for `/$count`; empty for
    /// an answer without a body (204).
    public var contentType: String
    public var body: [UInt8]
    /// The service's link to the rest of a collection (absolute), when one page was asked for
    /// (``ODataRequest/followsNextLinks`` false) and more follow; ``ODataRequest/page(after:headers:)``
    /// asks for it. Nil for a whole answer: offline answers are always whole.
    public var nextLink: String?
    /// The answer's headers: the service's as it sent them (online), or those an offline answer
    /// has, so callers read an entity's version and a create's address the same way both places
    /// (`ETag` of one entity, `Location` of a create), as known when the answer was written.
    public var headers: [HTTPHeader]
    /// What the answer holds (a collection of which set, an entity, a property, a count, a raw
    /// value), decided where the answer was made: read it instead of the request's URL.
    public var shape: AnswerShape

    public init(status: Int, contentType: String, body: [UInt8], nextLink: String? = nil, headers: [HTTPHeader] = [],
                shape: AnswerShape = .other) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.nextLink = nextLink
        self.headers = headers
        self.shape = shape
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of the header `name`, compared without case; a repeated header's values joined
    /// with ", " as HTTP allows. `Content-Type` is ``contentType`` unless that is empty; nil for
    /// headers the answer lacks.
    public func header(_ name: String) -> String? {
        let wanted = asciiLowercased(name)
        let values = headers.filter { asciiLowercased($0.name) == wanted }.map(\.value)
        if values.isEmpty { return wanted == "content-type" && !contentType.isEmpty ? contentType : nil }
        return values.joined(separator: ", ")
    }
}
