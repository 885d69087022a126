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
    /// For an offline write: false asks that its queued request be sent as it is, never merged
    /// with the entity's other requests or dropped when the queue is compacted before an upload.
    public var mergeable: Bool
    /// For a read the service answers: true (the default) follows the service's next links and
    /// answers the whole collection (at most `$top` entities); false answers one page, its next
    /// link in ``StoreResponse/nextLink``. Offline reads are answered whole either way.
    public var followsNextLinks: Bool

    public init(method: String = "GET", url: String, body: [UInt8]? = nil, headers: [HTTPHeader] = [],
                transactionID: String? = nil, followsNextLinks: Bool = true, mergeable: Bool = true) {
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
        self.transactionID = transactionID
        self.followsNextLinks = followsNextLinks
        self.mergeable = mergeable
    }

    /// The read of the page after `response` (one page, with the same `headers`), or nil when
    /// `response` is the last page or a whole answer.
    ///
    /// ```swift
    /// var request = ODataRequest(url: "BookingCollection", followsNextLinks: false)
    /// while true {
    ///     let page = try store.executeAndWait(request)
    ///     // ... use page.body ...
    ///     guard let next = ODataRequest.page(after: page) else { break }
    ///     request = next
    /// }
    /// ```
    public static func page(after response: StoreResponse, headers: [HTTPHeader] = []) -> ODataRequest? {
        response.nextLink.map { ODataRequest(url: $0, headers: headers, followsNextLinks: false) }
    }
}
