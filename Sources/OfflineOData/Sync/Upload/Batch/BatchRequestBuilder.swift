/// Writes a multipart `$batch` request body (OData V4 Protocol §11.7.2; V2 uses the same format).
///
/// Every change set is a nested `multipart/mixed` part; every request in it an `application/http`
/// part with its Content-ID, then the request line (URL relative to the service root), headers,
/// an empty line and the JSON body. Lines end with CRLF, as RFC 2046 asks.
struct BatchRequestBuilder {
    /// Makes a boundary from its kind (`batch`, `changeset`) and the queue id of the first request
    /// it encloses. Made from the ids by default, so an upload's preview (``UploadPreviewer``)
    /// shows the bytes the upload sends; fixed in tests that compare bytes.
    var makeBoundary: (String, Int64) -> String = BatchRequestBuilder.boundary

    struct Built {
        var body: [UInt8]
        /// The value of the request's `Content-Type` header.
        var contentType: String
    }

    /// - Parameter headers: extra headers of each request (its repeatability, say).
    /// - Throws: ``ODataError/Code/misuse`` for a header that is not one line (see
    ///   ``HTTPOptions/checkHeader(name:value:)``): an ETag a service sent with CR, LF or NUL would
    ///   write lines of its own into the batch, and sending without it would drop the concurrency check.
    func build(_ changeSets: [[PlannedRequest]], headers: (QueuedRequest) -> [HTTPHeader] = { _ in [] }) throws(ODataError) -> Built {
        let everyBody = changeSets.flatMap { $0.compactMap(\.request.body) }
        let batch = unusedBoundary("batch", changeSets.first?.first?.request.id ?? 0, in: everyBody)
        var text = ""
        for changeSet in changeSets {
            let inner = unusedBoundary("changeset", changeSet.first?.request.id ?? 0, in: everyBody)
            text += "--\(batch)\r\n"
            text += "Content-Type: multipart/mixed; boundary=\(inner)\r\n\r\n"
            for planned in changeSet {
                text += "--\(inner)\r\n"
                text += "Content-Type: application/http\r\n"
                text += "Content-Transfer-Encoding: binary\r\n"
                text += "Content-ID: \(planned.contentID)\r\n\r\n"
                text += try requestText(planned, headers: headers(planned.request))
                text += "\r\n"
            }
            text += "--\(inner)--\r\n"
        }
        text += "--\(batch)--\r\n"
        return Built(body: Array(text.utf8), contentType: "multipart/mixed; boundary=\(batch)")
    }

    /// The request line, headers, empty line and body of one request.
    private func requestText(_ planned: PlannedRequest, headers: [HTTPHeader]) throws(ODataError) -> String {
        let request = planned.request
        var text = "\(request.method.rawValue) \(planned.url) HTTP/1.1\r\n"
        text += "Accept: application/json\r\n"
        if request.body != nil { text += "Content-Type: application/json\r\n" }
        var all = headers
        if let etag = planned.ifMatch { all.insert(HTTPHeader("If-Match", etag), at: 0) }
        for header in all {
            try HTTPOptions.checkHeader(name: header.name, value: header.value)
            text += "\(header.name): \(header.value)\r\n"
        }
        text += "\r\n"
        if let body = request.body { text += body }
        return text
    }

    /// A boundary that no body contains, so no body can end a part early. Another is tried,
    /// numbered, while one does (still the same for the same requests).
    private func unusedBoundary(_ kind: String, _ firstID: Int64, in bodies: [String]) -> String {
        var candidate = makeBoundary(kind, firstID)
        var attempt = 0
        while bodies.contains(where: { $0.contains(candidate) }) {
            attempt += 1
            candidate = makeBoundary("\(kind)\(attempt)", firstID)
        }
        return candidate
    }

    /// `batch_ood_12`: the kind and the first request's queue id; unique within one `$batch`
    /// (each change set starts with another request).
    static func boundary(_ kind: String, _ firstID: Int64) -> String { "\(kind)_ood_\(firstID)" }
}
