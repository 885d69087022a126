/// The answer to a request on a store, shaped as the service would answer it.
public struct StoreResponse: Sendable, Equatable {
    /// The HTTP status the service would give: 200, 201, 204.
    public var status: Int
    /// `application/json` (with the dialect's parameters) or `text/plain` for `/$count`.
    public var contentType: String
    public var body: [UInt8]
    /// The service's link to the rest of a collection (absolute), when one page was asked for
    /// (``ODataRequest/followsNextLinks`` false) and more follow; ``ODataRequest/page(after:headers:)``
    /// asks for it. Nil for a whole answer: offline answers are always whole.
    public var nextLink: String?

    public init(status: Int, contentType: String, body: [UInt8], nextLink: String? = nil) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.nextLink = nextLink
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
