/// The answer to a local read: the body (OData JSON, or text for `$count` and `$value`), its
/// content type and the HTTP status a service would have given.
package struct ReadResult: Sendable, Equatable {
    package var body: [UInt8]
    package var contentType: String
    package var status: Int

    package init(body: [UInt8], contentType: String, status: Int = 200) {
        self.body = body
        self.contentType = contentType
        self.status = status
    }

    static let jsonContentType = "application/json;charset=utf-8"
    static let textContentType = "text/plain;charset=utf-8"
}
