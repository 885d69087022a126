/// The HTTP requests an upload sends, each built here only, so that the upload and its preview
/// (``UploadPreviewer``) send and show the same method, URL, headers and body.
struct UploadRequests {
    let serviceRoot: String
    let dialect: Dialect

    /// The OData version headers every request of the upload carries.
    var versionHeaders: [HTTPHeader] {
        switch dialect {
        case .v2: return [HTTPHeader("DataServiceVersion", "2.0"), HTTPHeader("MaxDataServiceVersion", "2.0")]
        case .v4: return [HTTPHeader("OData-Version", "4.0"), HTTPHeader("OData-MaxVersion", "4.01")]
        }
    }

    /// A queued request sent alone: its `If-Match` (not on a create), the CSRF token if the service
    /// handed one out, and `extraHeaders` (its repeatability).
    func single(_ request: QueuedRequest, csrf: String?, extraHeaders: [HTTPHeader]) -> HTTPRequest {
        var headers = [HTTPHeader("Accept", "application/json")]
        if request.body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        headers += versionHeaders
        if let etag = request.etag, request.method != .post { headers.append(HTTPHeader("If-Match", etag)) }
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        headers += extraHeaders
        return HTTPRequest(method: request.method.rawValue, url: ServiceURL.resolve(request.url, against: serviceRoot),
                           headers: headers, body: request.body.map { Array($0.utf8) })
    }

    /// The `POST $batch` that carries `built`.
    func batch(_ built: BatchRequestBuilder.Built, csrf: String?) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", built.contentType), HTTPHeader("Accept", "multipart/mixed")]
        headers += versionHeaders
        // Without it a V4 service may stop at the first failed change set and leave the rest unanswered.
        if dialect == .v4 { headers.append(HTTPHeader("Prefer", "odata.continue-on-error")) }
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        return HTTPRequest(method: "POST", url: ServiceURL.resolve("$batch", against: serviceRoot), headers: headers, body: built.body)
    }

    /// The read of one entity by its key URL (relative to the service root), as the upload reads
    /// an entity whose ETag it needs or whose request is in doubt (``ServedEntity``).
    func read(_ url: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: ServiceURL.resolve(url, against: serviceRoot),
                    headers: [HTTPHeader("Accept", "application/json")] + versionHeaders)
    }

    /// The request that fetches SAP Gateway's CSRF token (``CSRFToken``).
    static func csrfFetch(serviceRoot: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: serviceRoot,
                    headers: [HTTPHeader(CSRFToken.header, "Fetch"), HTTPHeader("Accept", "application/json")])
    }
}
