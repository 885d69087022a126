/// The answer to a local read: the body (OData JSON, or text for `$count` and `$value`), its
/// content type and the HTTP status a service would have given, with what it holds and the
/// headers known when it was written (the `ETag` of one entity, from the row written).
package struct ReadResult: Sendable, Equatable {
    package var body: [UInt8]
    package var contentType: String
    package var status: Int
    package var shape: AnswerShape
    package var headers: [HTTPHeader]

    package init(body: [UInt8], contentType: String, status: Int = 200, shape: AnswerShape = .other, headers: [HTTPHeader] = []) {
        self.body = body
        self.contentType = contentType
        self.status = status
        self.shape = shape
        self.headers = headers
    }

    /// The answer as the store gives it.
    var response: StoreResponse {
        StoreResponse(status: status, contentType: contentType, body: body, headers: headers, shape: shape)
    }

    static let jsonContentType = "application/json;charset=utf-8"
    static let textContentType = "text/plain;charset=utf-8"
}
