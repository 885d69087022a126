/// The one request a service-model check sends: `GET $metadata`, conditional where the store
/// knows the last document's `ETag` (`If-None-Match`) or date (`If-Modified-Since`).
enum ServiceModelFetch {
    /// What the service answered.
    enum Answer {
        /// 304: the document the store saw last.
        case notModified
        /// The document, with the validators to send next time.
        case document(bytes: [UInt8], record: ServiceModelRecord)
    }

    static func fetch(serviceRoot: String, transport: HTTPTransport, known: ServiceModelRecord,
                      cancellation: HTTPCancellation?) throws(ODataError) -> Answer {
        try ServiceURL.checkServiceRoot(serviceRoot)
        let url = ServiceURL.resolve("$metadata", against: serviceRoot)
        var headers = [HTTPHeader("Accept", "application/xml")]
        if let etag = known.etag { headers.append(HTTPHeader("If-None-Match", etag)) }
        if let date = known.lastModified { headers.append(HTTPHeader("If-Modified-Since", date)) }
        let response = try transport.send(HTTPRequest(method: RequestMethod.get.rawValue, url: url, headers: headers),
                                          cancellation: cancellation)
        // A 304 is proof only when the store asked conditionally.
        if response.status == 304, known.etag != nil || known.lastModified != nil { return .notModified }
        guard response.status == 200 else {
            throw ServiceModelFailure.refusal(transport.serviceError(response, request: "GET \(redactedURL(url))"))
        }
        try MetadataSizeLimit.check(response.body.count, limit: transport.currentOptions.maximumMetadataSize,
                                    source: "the service's $metadata")
        let record = ServiceModelRecord(etag: response.header("ETag"), lastModified: response.header("Last-Modified"),
                                        hash: DocumentHash.of(response.body))
        return .document(bytes: response.body, record: record)
    }
}
