/// A store that sends every request to the OData service and returns its answers.
///
/// A read of a collection follows the service's next links and answers the whole collection, or
/// one page with its next link (see `ServiceClient+Paging.swift`); other answers are returned as
/// they come.
///
/// Answers have the shapes the offline store gives (it writes the service's JSON, V2 or V4), so
/// an application reads both alike. Errors the service answers become ``ODataError``s with the
/// service's message and HTTP status (``ODataError/Code/notFound`` for 404, else
/// ``ODataError/Code/http``); a failed connection is ``ODataError/Code/network``.
///
/// Modifying requests carry SAP Gateway's CSRF token, fetched once and again when it expires.
/// ETags are the caller's: give `If-Match` in `headers` where the service asks for one.
package final class ServiceClient: @unchecked Sendable {
    package let serviceRoot: String
    package let dialect: Dialect
    let transport: HTTPTransport
    /// The token of the session, shared by the modifying requests; guarded by `csrfLock`.
    private var csrf = CSRFToken()
    private let csrfLock = Lock()

    package init(serviceRoot: String, dialect: Dialect, transport: HTTPTransport) throws(ODataError) {
        try ServiceURL.checkServiceRoot(serviceRoot)
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        self.dialect = dialect
        self.transport = transport
    }

    /// Fetches the service's `$metadata` document.
    package static func fetchMetadata(serviceRoot: String, transport: HTTPTransport,
                                     cancellation: HTTPCancellation? = nil) throws(ODataError) -> String {
        try ServiceURL.checkServiceRoot(serviceRoot)
        let url = ServiceURL.resolve("$metadata", against: serviceRoot)
        let response = try transport.send(HTTPRequest(method: RequestMethod.get.rawValue, url: url, headers: [HTTPHeader("Accept", "application/xml")]),
                                          cancellation: cancellation)
        guard response.status == 200 else { throw transport.serviceError(response, request: "GET \(redactedURL(url))") }
        try MetadataSizeLimit.check(response.body.count, limit: transport.currentOptions.maximumMetadataSize, source: "the service's $metadata")
        return response.text
    }

    /// Sends the resolved request (relative to the service root, or a next link the service sent)
    /// and returns the service's answer. The method, `$top` and a `/$count` or `/$value` ending
    /// come from the resolution: nothing here reads them out of the URL's text again.
    ///
    /// - Parameter followsNextLinks: for a read of a collection, true (the default) gathers every
    ///   page into one answer, up to the query's `$top`; false answers the first page with its next
    ///   link in ``StoreResponse/nextLink``.
    /// - Throws: ``ODataError/Code/http`` or ``ODataError/Code/notFound`` for an error answer,
    ///   ``ODataError/Code/network`` when the service cannot be reached, for an absolute URL or a next
    ///   link off the service's origin, and for more pages or bytes than ``HTTPOptions`` allows,
    ///   ``ODataError/Code/aborted`` when cancelled.
    package func execute(_ resolved: ResolvedRequest, body: [UInt8]? = nil, headers: [HTTPHeader] = [],
                        followsNextLinks: Bool = true, cancellation: HTTPCancellation? = nil) throws(ODataError) -> StoreResponse {
        let url = resolved.url
        let absolute = ServiceURL.resolve(url, against: serviceRoot)
        // An absolute URL (a next link handed back) goes out with the session's credentials: only to the origin.
        if ServiceURL.hasScheme(url) { try ServiceURL.checkSameOrigin(absolute, as: serviceRoot, what: "the URL") }
        var allHeaders = ODataProtocolHeaders.json(for: dialect)
        // `/$count` answers plain text and `/$value` the raw value: a JSON-only Accept gets a 406.
        if let suffix = resolved.suffix {
            allHeaders.removeAll { asciiLowercased($0.name) == "accept" }
            allHeaders.append(HTTPHeader("Accept", suffix == .count ? "text/plain" : "*/*"))
        }
        if body != nil { allHeaders.append(HTTPHeader("Content-Type", "application/json")) }
        // The caller's headers come last, so they win where they repeat one of ours.
        let callerNames = Set(headers.map { asciiLowercased($0.name) })
        allHeaders.removeAll { callerNames.contains(asciiLowercased($0.name)) }
        allHeaders += headers
        let request = HTTPRequest(method: resolved.method.rawValue, url: absolute, headers: allHeaders, body: body)
        let response: HTTPResponse
        if resolved.isRead {
            response = try transport.send(request, cancellation: cancellation)
        } else {
            response = try csrfLock.withLock { () throws(ODataError) -> HTTPResponse in
                try csrf.sending(transport, serviceRoot: serviceRoot, cancellation: cancellation) { token throws(ODataError) in
                    var withToken = request
                    if let token { withToken.headers.append(HTTPHeader(CSRFToken.header, token)) }
                    return try transport.send(withToken, cancellation: cancellation)
                }
            }
        }
        guard response.status < 400 else {
            throw transport.serviceError(response, request: "\(resolved.method) \(redactedURL(absolute))")
        }
        guard resolved.isRead else {
            return StoreResponse(status: response.status, contentType: response.header("Content-Type") ?? "", body: response.body,
                                 headers: response.headers)
        }
        return try pagedAnswer(to: request, top: resolved.top, first: response, followsNextLinks: followsNextLinks,
                               cancellation: cancellation)
    }
}
