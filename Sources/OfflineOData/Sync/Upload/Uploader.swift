/// Sends the request queue to the service, first in first out, and records each answer.
///
/// - 2xx: the request leaves the queue and the entity takes the service's answer (its new ETag;
///   a deleted entity leaves the store; an entity with nothing more queued is no longer pending),
///   all in one transaction, so a crash never loses an acknowledged answer.
/// - 4xx: the request, and every later request on the same entity (they build on a change the
///   service refused), move to the error archive with the service's message; the entity is marked
///   in error (`_ood_error`); the upload goes on with the rest of the queue.
/// - 5xx, a network failure, a cancellation: the upload stops with the request still queued, so a
///   later upload retries it; the error says so.
///
/// A request the service applied but whose answer was lost (the connection broke, the process
/// was killed before the answer was recorded) stays queued and is sent again; a service that
/// declares repeatable requests gets the same `Repeatability-Request-ID` again and applies it
/// once (``RepeatableRequests``).
struct Uploader {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    func upload(cancellation: HTTPCancellation? = nil,
                progress: (UploadProgress) -> Bool = { _ in true }) throws(ODataError) -> UploadOutcome {
        let total = try file.withConnection { db throws(ODataError) in try RequestQueueTable.count(in: db) }
        var csrf = CSRFToken()
        var sent = 0
        var archived = 0
        let repeatable = try RepeatableRequests.load(model: schema.model, file: file)
        while let queued = try file.withConnection({ db throws(ODataError) in try RequestQueueTable.first(in: db) }) {
            if cancellation?.isCancelled == true {
                throw ODataError(.aborted, "the upload was cancelled with \(total - sent - archived) requests still queued")
            }
            let request = try repeatable.stamped([queued], file: file).first ?? queued
            let response: HTTPResponse
            do {
                response = try csrf.sending(transport, serviceRoot: serviceRoot, cancellation: cancellation) { token throws(ODataError) in
                    try send(request, csrf: token, extraHeaders: repeatable.headers(for: request), cancellation: cancellation)
                }
            } catch {
                // A timeout or a broken connection says what happened, and that nothing was lost.
                var error = error
                if error.code == .network { error.message += uploadStopped(remaining: total - sent - archived) }
                throw error
            }
            switch response.status {
            case 200..<300:
                try file.withConnection { db throws(ODataError) in
                    try db.transaction { () throws(ODataError) in try recorder.acknowledge(request, response, in: db) }
                }
                sent += 1
            case 400..<500:
                let message = ServiceError.from(response, request: "\(request.method) \(redactedURL(request.url))").message
                archived += try file.withConnection { db throws(ODataError) in
                    try db.transaction { () throws(ODataError) -> Int in
                        try recorder.archive(request, status: response.status, message: message, in: db)
                    }
                }
            default:
                var error = ServiceError.from(response, request: "\(request.method) \(redactedURL(request.url))")
                error.message += uploadStopped(remaining: total - sent - archived)
                throw error
            }
            guard progress(UploadProgress(sent: sent, archived: archived, total: total)) else {
                throw ODataError(.aborted, "the upload was stopped with \(total - sent - archived) requests still queued")
            }
        }
        return UploadOutcome(sent: sent, archived: archived)
    }

    private func send(_ request: QueuedRequest, csrf: String?, extraHeaders: [HTTPHeader],
                      cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        var headers = [HTTPHeader("Accept", "application/json")]
        if request.body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        switch dialect {
        case .v2: headers += [HTTPHeader("DataServiceVersion", "2.0"), HTTPHeader("MaxDataServiceVersion", "2.0")]
        case .v4: headers += [HTTPHeader("OData-Version", "4.0"), HTTPHeader("OData-MaxVersion", "4.01")]
        }
        if let etag = request.etag, request.method != "POST" { headers.append(HTTPHeader("If-Match", etag)) }
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        headers += extraHeaders
        return try transport.send(HTTPRequest(method: request.method, url: ServiceURL.resolve(request.url, against: serviceRoot),
                                              headers: headers, body: request.body.map { Array($0.utf8) }),
                                  cancellation: cancellation)
    }
}
