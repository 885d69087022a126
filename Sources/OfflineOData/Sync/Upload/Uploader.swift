#if canImport(Glibc)
import Glibc
#endif

/// Sends the request queue to the service, first in first out, and records each answer; see
/// ``AnswerVerdict`` for what an answer means.
///
/// - Before a request leaves, it is marked sent (in doubt) in the store, durably: whatever happens
///   next, the engine knows the service may have it. The next upload settles requests in doubt
///   before sending anything (``InDoubtReconciler``), so none is applied twice.
/// - 2xx with proof (the entity a create made, a JSON body or none): the request leaves the queue
///   and the entity takes the service's answer (its new key and ETag; a deleted entity leaves the
///   store; an entity with nothing more queued is no longer pending), all in one transaction.
/// - A refusal the request caused (400, 403, 404, 409, 412, 422, ...): the request, and every
///   later request on the same entity (they build on it), move to the error archive with the
///   service's message and kind; the entity is marked in error; the upload goes on.
/// - 428: the entity is read for its ETag and sent again, or archived as a conflict (``ETagRecovery``).
/// - 401, 407, 408, 425, 429, 5xx, a CSRF token the service keeps refusing: the upload stops with
///   the request queued as it was; 429 and 503 with a short `Retry-After` are waited for first.
/// - No answer (the connection broke, a timeout), a 502/504 or a 2xx that proves nothing: the
///   upload stops with the request in doubt.
struct Uploader {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema
    /// Compact the queue (``QueueCompactor``) once the requests in doubt are settled.
    var compactsQueue = true
    /// What a conflict (409, 412; 404 of an update or delete) does: the store's policies, this
    /// upload's, the app's resolver (``ConflictResolution``).
    var conflictPolicies = ConflictPolicies()
    var conflictPolicy: ConflictPolicy?
    var conflictResolver: ConflictResolver?

    /// The longest `Retry-After` the upload waits for before sending again; a longer one stops it.
    static let longestWait = 30
    /// How many times one upload waits for a `Retry-After`.
    static let waitsPerUpload = 3

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    func upload(cancellation: HTTPCancellation? = nil,
                progress: (UploadProgress) -> Bool = { _ in true }) throws(ODataError) -> UploadOutcome {
        var run = try UploadRun(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema,
                                compactsQueue: compactsQueue, cancellation: cancellation)
        var csrf = CSRFToken()
        let (repeatable, recovery) = (run.repeatable, run.recovery)
        var recovered: Set<Int64> = []
        var waits = 0
        let conflicts = ConflictResolution(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema,
                                           policies: conflictPolicies, override: conflictPolicy, resolver: conflictResolver)
        var sentAgain: [Int64: Int] = [:]
        while let queued = try file.withConnection({ db throws(ODataError) in try RequestQueueTable.first(in: db) }) {
            try run.checkCancellation(cancellation)
            if recovery.needsETagFirst(queued) && !recovered.contains(queued.id) {
                recovered.insert(queued.id)
                if case .settled(let settled) = try recovery.recover(queued, conflicts: conflicts, cancellation: cancellation) {
                    run.outcome.add(settled)
                }
                continue
            }
            try csrf.ensure(transport, serviceRoot: serviceRoot, cancellation: cancellation, stopped: uploadStopped(remaining: run.remaining))
            let request = try repeatable.markSending([queued], file: file).first ?? queued
            // A media entity created offline: its stream, then its properties (``MediaUpload``).
            let mediaStream = try MediaUpload.localStream(of: request, schema: schema, file: file)
            // A media stream reports its bytes while it travels (not a way to stop it: the upload
            // stops between requests). The progress closure is used only during this send.
            let (inFlightRun, trafficBefore) = (run, run.trafficNow)
            let response: HTTPResponse
            do {
                response = try withoutActuallyEscaping(progress) { (report) throws(ODataError) -> HTTPResponse in
                    let bodyProgress = mediaStream.map { _ in
                        HTTPBodyFileProgress { sent, _ in _ = report(inFlightRun.inFlight(streamBytes: sent, before: trafficBefore)) }
                    }
                    return try csrf.sending(transport, serviceRoot: serviceRoot, cancellation: cancellation) { token throws(ODataError) in
                        if let mediaStream {
                            let media = MediaUpload(transport: transport, serviceRoot: serviceRoot, dialect: dialect,
                                                    folder: StreamFolder(storePath: file.path))
                            if request.method == .put {
                                return try media.replace(request, stream: mediaStream, csrf: token, extraHeaders: repeatable.headers(for: request),
                                                         bodyProgress: bodyProgress, cancellation: cancellation)
                            }
                            // Found on the service after its answer was lost: finished, never sent twice.
                            if let address = run.adoptedMedia[request.id] {
                                return try media.finish(request, at: address, etag: nil, csrf: token, cancellation: cancellation)
                            }
                            return try media
                                .send(request, stream: mediaStream, csrf: token, extraHeaders: repeatable.headers(for: request),
                                      bodyProgress: bodyProgress, cancellation: cancellation)
                        }
                        return try send(request, csrf: token, extraHeaders: repeatable.headers(for: request), cancellation: cancellation)
                    }
                }
            } catch {
                // No answer: the service may have the request. Say so, and that nothing was lost.
                var error = error
                error.message += uploadStoppedInDoubt(remaining: run.remaining)
                throw error
            }
            let label = "\(request.method) \(redactedURL(request.url))"
            let table = request.entitySet.flatMap { schema.table(forEntitySet: $0) }
            var document: JSONValue?
            switch AnswerVerdict(response, to: request, keyColumns: table?.keyColumns ?? [], dialect: dialect, document: &document,
                                 locationKey: ServerAssignedKey.locationReader(table: table, model: schema.model, dialect: dialect)) {
            case .applied:
                let removedStreams = try file.withConnection { db throws(ODataError) -> [StreamRecord] in
                    try db.transaction { () throws(ODataError) -> [StreamRecord] in
                        try recorder.acknowledge(request, response, answer: document, in: db)
                        if let mediaStream { try MediaUpload.recordUploaded(mediaStream, answer: document, response: response, in: db) }
                        return try MediaUpload.forgetStreams(ofDeleted: request, in: db)
                    }
                }
                // An entity with streams deleted on the service: their files go once the deletion is recorded.
                for removed in removedStreams { MediaUpload.removeFile(of: removed, storePath: file.path) }
                run.outcome.sent += 1
            case .refused(let kind):
                let message = transport.serviceError(response, request: label).message
                if conflicts.handles(request, status: response.status) {
                    let times = sentAgain[request.id, default: 0]
                    switch try conflicts.resolve(request, status: response.status, message: message, sentAgain: times,
                                                 cancellation: cancellation) {
                    case .sendAgain:
                        sentAgain[request.id] = times + 1
                        continue
                    case .settled(let settled):
                        run.outcome.add(settled)
                    }
                    break
                }
                run.outcome.archived += try file.withConnection { db throws(ODataError) in
                    try db.transaction { () throws(ODataError) -> Int in
                        try recorder.archive(request, status: response.status, message: message, kind: kind, in: db)
                    }
                }
            case .preconditionRequired:
                try markPending(request)
                if recovered.contains(request.id) {
                    // Sent again with the entity's ETag and still 428: the service will not take it.
                    let message = transport.serviceError(response, request: label).message + " (also with the entity's current ETag)"
                    run.outcome.archived += try file.withConnection { db throws(ODataError) in
                        try db.transaction { () throws(ODataError) -> Int in
                            try recorder.archive(request, status: response.status, message: message, kind: .refused, in: db)
                        }
                    }
                } else {
                    recovered.insert(request.id)
                    if case .settled(let settled) = try recovery.recover(request, conflicts: conflicts, cancellation: cancellation) {
                        run.outcome.add(settled)
                    }
                    continue
                }
            case .notNow(let retryAfter):
                try markPending(request)
                if let seconds = retryAfter, seconds <= Self.longestWait, waits < Self.waitsPerUpload,
                   response.status == 429 || response.status == 503 {
                    waits += 1
                    try wait(seconds: seconds, cancellation: cancellation)
                    continue
                }
                var error = transport.serviceError(response, request: label)
                error.message += " (" + AnswerVerdict.advice(for: response) + ")" + uploadStopped(remaining: run.remaining)
                throw error
            case .gatewayFailure:
                var error = transport.serviceError(response, request: label)
                error.message += uploadStoppedInDoubt(remaining: run.remaining)
                throw error
            case .noProof(let reason):
                throw ODataError(.http, reason + uploadStoppedInDoubt(remaining: run.remaining))
            }
            try run.report(to: progress)
        }
        return run.finished()
    }

    /// The service said it did not apply `request` (a 428, a 429, a 5xx): it is no longer in doubt.
    private func markPending(_ request: QueuedRequest) throws(ODataError) {
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in try RequestQueueTable.markPending(ids: [request.id], in: db) }
        }
    }

    /// Waits `seconds` (a `Retry-After`), in steps of a tenth of a second so a cancellation ends it.
    private func wait(seconds: Int, cancellation: HTTPCancellation?) throws(ODataError) {
        for _ in 0..<(seconds * 10) {
            if cancellation?.isCancelled == true { throw ODataError(.aborted, "the upload was cancelled while waiting (Retry-After)") }
            usleep(100_000)
        }
    }

    private func send(_ request: QueuedRequest, csrf: String?, extraHeaders: [HTTPHeader],
                      cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        try transport.send(UploadRequests(serviceRoot: serviceRoot, dialect: dialect).single(request, csrf: csrf, extraHeaders: extraHeaders),
                           cancellation: cancellation)
    }
}
