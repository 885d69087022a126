/// Sends the request queue in `$batch` requests of at most `batchSize` queued requests each, first
/// in first out, and records every answer as the single-request upload does (``UploadRecorder``).
///
/// - A change set the service applied: each request leaves the queue, the entity takes its answer.
/// - A change set the service refused (one 4xx answer for the whole set): its requests, and the
///   later requests on their entities, move to the error archive with the service's message; the
///   other change sets of the batch are independent and recorded as answered.
/// - The whole batch answered 4xx/5xx, a network failure, an unreadable answer, a cancellation:
///   the upload stops and every request of that batch stays queued for a later upload.
/// - A change set answered 5xx or not answered at all stays queued; the answered ones are recorded,
///   then the upload stops with the 5xx (or, when nothing of the batch was answered, says so).
///
/// Each batch's answers are recorded in one transaction, so a crash never loses an acknowledged answer.
struct BatchUploader {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema
    var batchSize: Int = 100
    var groupByTransaction = false
    var builder = BatchRequestBuilder()

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    func upload(cancellation: HTTPCancellation? = nil,
                progress: (UploadProgress) -> Bool = { _ in true }) throws(ODataError) -> UploadOutcome {
        let total = try file.withConnection { db throws(ODataError) in try RequestQueueTable.count(in: db) }
        var csrf = CSRFToken()
        var sent = 0
        var archived = 0
        func stopped() -> String { uploadStopped(remaining: total - sent - archived) }
        let repeatable = try RepeatableRequests.load(model: schema.model, file: file)
        while true {
            let queued = try file.withConnection { db throws(ODataError) in try nextChunk(in: db) }
            if queued.isEmpty { break }
            if cancellation?.isCancelled == true {
                throw ODataError(.aborted, "the upload was cancelled with \(total - sent - archived) requests still queued")
            }
            let chunk = try repeatable.stamped(queued, file: file)
            // SAP Gateway-like V2 services fail on `$<n>` references (see Tests/backends/README.md);
            // there the entity's key URL works, as its POST precedes it in the same change set.
            let plan = ChangeSetPlan.plan(chunk, groupByTransaction: groupByTransaction, contentIDReferences: dialect == .v4)
            let built = builder.build(plan, headers: repeatable.headers(for:))
            let response: HTTPResponse
            do {
                response = try csrf.sending(transport, serviceRoot: serviceRoot, cancellation: cancellation) { token throws(ODataError) in
                    try send(built, csrf: token, cancellation: cancellation)
                }
            } catch {
                var error = error
                if error.code == .network { error.message += stopped() }
                throw error
            }
            guard (200..<300).contains(response.status) else {
                var error = ServiceError.from(response, request: "POST $batch of \(chunk.count) requests")
                error.message += stopped()
                throw error
            }
            let items: [BatchResponseItem]
            do {
                items = try BatchResponseParser.parse(response)
            } catch {
                var error = error
                error.message = "the $batch answer cannot be read: \(error.message)" + stopped()
                throw error
            }
            let outcome = try file.withConnection { db throws(ODataError) -> ChunkOutcome in
                try db.transaction { () throws(ODataError) -> ChunkOutcome in try record(items, for: plan, in: db) }
            }
            sent += outcome.sent
            archived += outcome.archived
            if var failure = outcome.serverFailure {
                failure.message += stopped()
                throw failure
            }
            if outcome.sent + outcome.archived == 0 {
                throw ODataError(.http, "the service answered none of the \(chunk.count) requests of the $batch "
                                 + "(\(items.count) answers for \(plan.count) change sets)" + stopped())
            }
            guard progress(UploadProgress(sent: sent, archived: archived, total: total)) else {
                throw ODataError(.aborted, "the upload was stopped with \(total - sent - archived) requests still queued")
            }
        }
        return UploadOutcome(sent: sent, archived: archived)
    }

    /// The next `batchSize` queued requests. With `groupByTransaction`, a transaction the chunk's
    /// end would cut in two is completed with the requests that follow it in the queue, so that its
    /// change set is sent whole (a transaction is all or nothing, whatever the batch size).
    private func nextChunk(in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        var chunk = try RequestQueueTable.first(max(batchSize, 1), in: db)
        guard groupByTransaction else { return chunk }
        while let last = chunk.last, let transaction = last.transactionID, !transaction.isEmpty {
            let more = try RequestQueueTable.following(id: last.id, limit: max(batchSize, 1), in: db)
            let continuing = more.prefix { $0.transactionID == transaction }
            chunk += continuing
            if continuing.count < more.count || more.isEmpty { break }
        }
        return chunk
    }

    private func send(_ built: BatchRequestBuilder.Built, csrf: String?, cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        var headers = [HTTPHeader("Content-Type", built.contentType), HTTPHeader("Accept", "multipart/mixed")]
        switch dialect {
        case .v2: headers += [HTTPHeader("DataServiceVersion", "2.0"), HTTPHeader("MaxDataServiceVersion", "2.0")]
        case .v4:
            // Without it a V4 service may stop at the first failed change set and leave the rest unanswered.
            headers += [HTTPHeader("OData-Version", "4.0"), HTTPHeader("OData-MaxVersion", "4.01"),
                        HTTPHeader("Prefer", "odata.continue-on-error")]
        }
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        return try transport.send(HTTPRequest(method: "POST", url: ServiceURL.resolve("$batch", against: serviceRoot),
                                              headers: headers, body: built.body),
                                  cancellation: cancellation)
    }

    // MARK: - Recording answers

    private struct ChunkOutcome {
        var sent = 0
        var archived = 0
        /// The first 5xx answer, after which the upload stops.
        var serverFailure: ODataError?
    }

    /// Maps the answers back to the change sets, in order, and records each.
    private func record(_ items: [BatchResponseItem], for plan: [[PlannedRequest]], in db: SQLiteConnection) throws(ODataError) -> ChunkOutcome {
        var outcome = ChunkOutcome()
        for (changeSet, item) in zip(plan, items) {
            switch item {
            case .changeSet(let answers):
                // Some services (odatapy) answer a refused change set as a change set holding the one error.
                if let refusal = answers.first(where: { !(200..<300).contains($0.response.status) }) {
                    try record(refusal.response, for: changeSet, into: &outcome, in: db)
                    continue
                }
                for (position, planned) in changeSet.enumerated() {
                    let answer = answers.first { $0.contentID == planned.contentID }?.response
                        ?? (answers.indices.contains(position) && answers.allSatisfy { $0.contentID == nil } ? answers[position].response : nil)
                    guard let answer else { continue }
                    try record(answer, for: [planned], into: &outcome, in: db)
                }
            case .single(_, let answer):
                try record(answer, for: changeSet, into: &outcome, in: db)
            }
        }
        return outcome
    }

    /// Records one answer for the requests it covers: one request, or a whole refused change set.
    private func record(_ answer: HTTPResponse, for requests: [PlannedRequest], into outcome: inout ChunkOutcome,
                        in db: SQLiteConnection) throws(ODataError) {
        let first = requests.first.map { "\($0.request.method) \(redactedURL($0.request.url))" } ?? "$batch"
        let label = requests.count > 1 ? "\(first) (a change set of \(requests.count) requests)" : first
        switch answer.status {
        case 200..<300 where requests.count == 1:
            for planned in requests { try recorder.acknowledge(planned.request, answer, in: db) }
            outcome.sent += requests.count
        case 400..<500:
            let message = ServiceError.from(answer, request: label).message
            outcome.archived += try recorder.archive(requests.map(\.request), status: answer.status, message: message, in: db)
        default:
            // A 5xx, or an answer that does not fit (a 2xx for a whole change set): nothing is recorded.
            if outcome.serverFailure == nil {
                outcome.serverFailure = ServiceError.from(answer, request: label)
            }
        }
    }
}
