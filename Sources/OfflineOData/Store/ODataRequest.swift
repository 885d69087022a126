/// A request to an ``ODataStore``: what an HTTP request to the service would carry.
public struct ODataRequest: Sendable, Equatable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `MERGE` (V2) or `DELETE`.
    public var method: String
    /// Relative to the service root, in the service's dialect: `TravelagencyCollection?$filter=country eq 'US'`.
    public var url: String
    /// The JSON body of a create or an update.
    public var body: [UInt8]?
    /// Extra headers for the service (`If-Match`, say); the offline store does not need them (it
    /// keeps each entity's ETag itself).
    public var headers: [HTTPHeader]
    /// Offline writes with the same id are uploaded in one change set by a grouped `$batch` upload.
    public var transactionID: String?

    public init(method: String = "GET", url: String, body: [UInt8]? = nil, headers: [HTTPHeader] = [],
                transactionID: String? = nil) {
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
        self.transactionID = transactionID
    }

    /// Whether the request only reads.
    var isRead: Bool { asciiUppercased(method) == "GET" }
}
