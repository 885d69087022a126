/// Sends the request queue in `$batch` requests of at most `batchSize` queued requests each, first
/// in first out, and records every answer as the single-request upload does (``UploadRecorder``,
/// ``AnswerVerdict``).
///
/// - Before a batch leaves, its requests are marked sent (in doubt) in the store, durably; the next
///   upload settles any whose answer was not recorded before sending again (``InDoubtReconciler``).
/// - A change set the service applied, each answer with proof: each request leaves the queue, the
///   entity takes its answer.
/// - A change set the service refused (one 4xx answer for the whole set): its requests, and the
///   later requests on their entities, move to the error archive with the service's message and
///   kind; the other change sets of the batch are independent and recorded as answered.
/// - A change set answered 428: its requests are queued again after ``ETagRecovery`` read their
///   entity's ETag (or archived as a conflict).
/// - A change set answered "not now" (401, 429, 5xx, ...): queued as it was; the upload stops after
///   recording the others. Not answered, answered 502/504 or without proof: in doubt; the upload stops.
/// - The whole batch answered "not now": the upload stops and every request of that batch is queued
///   as it was. No answer, a cut or unreadable answer, a 502/504: every request of the batch stays
///   in doubt and the upload stops.
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
    /// Compact the queue (``QueueCompactor``) once the requests in doubt are settled.
    var compactsQueue = true
    var builder = BatchRequestBuilder()
    /// What a conflict does (``ConflictResolution``): resolved after the batch's answers are
    /// recorded, for a change set of one request; a larger change set is archived whole, as before.
    var conflictPolicies = ConflictPolicies()
    var conflictPolicy: ConflictPolicy?
    var conflictResolver: ConflictResolver?

    private var conflicts: ConflictResolution {
        ConflictResolution(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema,
                           policies: conflictPolicies, override: conflictPolicy, resolver: conflictResolver)
    }

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    func upload(cancellation: HTTPCancellation? = nil,
                progress: (UploadProgress) -> Bool = { _ in true }) throws(ODataError) -> UploadOutcome {
        var run = try UploadRun(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema,
                                compactsQueue: compactsQueue, cancellation: cancellation)
        var csrf = CSRFToken()
        let (repeatable, recovery) = (run.repeatable, run.recovery)
        func stopped() -> String { uploadStopped(remaining: run.remaining) }
        func stoppedInDoubt() -> String { uploadStoppedInDoubt(remaining: run.remaining) }
        var recovered: Set<Int64> = []
        var sentAgain: [Int64: Int] = [:]
        let conflicts = self.conflicts
        while true {
            let queued = try file.withConnection { db throws(ODataError) in try nextChunk(in: db) }
            if queued.isEmpty { break }
            try run.checkCancellation(cancellation)
            // Changes of sets that check ETags, queued without one: their entity is read first.
            let unversioned = queued.enumerated().filter { position, request in
                recovery.needsETagFirst(request, sentBefore: queued[..<position]) && !recovered.contains(request.id)
            }.map(\.element)
            if !unversioned.isEmpty {
                for request in unversioned {
                    recovered.insert(request.id)
                    if case .settled(let settled) = try recovery.recover(request, conflicts: conflicts, cancellation: cancellation) {
                        run.outcome.add(settled)
                    }
                }
                continue
            }
            try csrf.ensure(transport, serviceRoot: serviceRoot, cancellation: cancellation, stopped: stopped())
            let chunk = try repeatable.markSending(queued, file: file)
            // SAP Gateway-like V2 services fail on `$<n>` references (see Tests/backends/README.md);
            // there the entity's key URL works, as its POST precedes it in the same change set.
            let plan = ChangeSetPlan.plan(chunk, groupByTransaction: groupByTransaction, contentIDReferences: dialect == .v4)
            let built = try builder.build(plan, headers: repeatable.headers(for:))
            let response: HTTPResponse
            do {
                response = try csrf.sending(transport, serviceRoot: serviceRoot, cancellation: cancellation) { token throws(ODataError) in
                    try send(built, csrf: token, cancellation: cancellation)
                }
            } catch {
                var error = error
                error.message += stoppedInDoubt()
                throw error
            }
            guard (200..<300).contains(response.status) else {
                var error = transport.serviceError(response, request: "POST $batch of \(chunk.count) requests")
                if case .gatewayFailure = AnswerVerdict(response, to: chunk[0], keyColumns: []) {
                    error.message += stoppedInDoubt()
                } else {
                    // The service refused the batch as a whole: it applied none of it.
                    try markPending(chunk.map(\.id))
                    error.message += " (" + AnswerVerdict.advice(for: response) + ")" + stopped()
                }
                throw error
            }
            let items: [BatchResponseItem]
            do {
                items = try BatchResponseParser.parse(response)
            } catch {
                var error = error
                error.message = "the $batch answer cannot be read: \(error.message)" + stoppedInDoubt()
                throw error
            }
            var outcome = try file.withConnection { db throws(ODataError) -> ChunkOutcome in
                try db.transaction { () throws(ODataError) -> ChunkOutcome in try record(items, for: plan, in: db) }
            }
            run.outcome.sent += outcome.sent
            run.outcome.archived += outcome.archived
            for request in outcome.preconditionRequired {
                if recovered.contains(request.id) {
                    outcome.failure = outcome.failure ?? ODataError(.http, "\(request.method) \(redactedURL(request.url)): the service "
                                                                     + "answered 428 also with the entity's current ETag")
                    continue
                }
                recovered.insert(request.id)
                if case .settled(let settled) = try recovery.recover(request, conflicts: conflicts, cancellation: cancellation) {
                    run.outcome.add(settled)
                }
            }
            for conflict in outcome.conflicts {
                let times = sentAgain[conflict.request.id, default: 0]
                switch try conflicts.resolve(conflict.request, status: conflict.status, message: conflict.message, sentAgain: times,
                                             cancellation: cancellation) {
                case .sendAgain:
                    sentAgain[conflict.request.id] = times + 1
                case .settled(let settled):
                    run.outcome.add(settled)
                }
            }
            if var failure = outcome.failure {
                failure.message += outcome.leftInDoubt ? stoppedInDoubt() : stopped()
                throw failure
            }
            if outcome.sent + outcome.archived + outcome.preconditionRequired.count + outcome.conflicts.count == 0 {
                throw ODataError(.http, "the service answered none of the \(chunk.count) requests of the $batch "
                                 + "(\(items.count) answers for \(plan.count) change sets)" + stoppedInDoubt())
            }
            try run.report(to: progress)
        }
        return run.finished()
    }

    /// The service said it applied none of these requests: they are no longer in doubt.
    private func markPending(_ ids: [Int64]) throws(ODataError) {
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in try RequestQueueTable.markPending(ids: ids, in: db) }
        }
    }

    /// The next `batchSize` queued requests. With `groupByTransaction`, a transaction the chunk's
    /// end would cut in two is completed with the requests that follow it in the queue, so that its
    /// change set is sent whole (a transaction is all or nothing, whatever the batch size).
    private func nextChunk(in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try Self.chunk(batchSize: batchSize, groupByTransaction: groupByTransaction,
                       first: { limit throws(ODataError) in try RequestQueueTable.first(limit, in: db) },
                       following: { id, limit throws(ODataError) in try RequestQueueTable.following(id: id, limit: limit, in: db) })
    }

    /// The chunk of one `$batch`, from the queue as `first` (its first n requests) and `following`
    /// (at most n requests after an id) read it: the store's queue for the upload, the queued rows
    /// in memory for its preview.
    static func chunk(batchSize: Int, groupByTransaction: Bool,
                      first: (Int) throws(ODataError) -> [QueuedRequest],
                      following: (Int64, Int) throws(ODataError) -> [QueuedRequest]) throws(ODataError) -> [QueuedRequest] {
        var chunk = try first(max(batchSize, 1))
        guard groupByTransaction else { return chunk }
        while let last = chunk.last, let transaction = last.transactionID, !transaction.isEmpty {
            let more = try following(last.id, max(batchSize, 1))
            let continuing = more.prefix { $0.transactionID == transaction }
            chunk += continuing
            if continuing.count < more.count || more.isEmpty { break }
        }
        return chunk
    }

    private func send(_ built: BatchRequestBuilder.Built, csrf: String?, cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        try transport.send(UploadRequests(serviceRoot: serviceRoot, dialect: dialect).batch(built, csrf: csrf), cancellation: cancellation)
    }

    // MARK: - Recording answers

    private struct ChunkOutcome {
        var sent = 0
        var archived = 0
        /// Requests answered 428, queued again for ``ETagRecovery``.
        var preconditionRequired: [QueuedRequest] = []
        /// Requests refused as conflicts, queued again (pending) for ``ConflictResolution``.
        var conflicts: [(request: QueuedRequest, status: Int, message: String)] = []
        /// The first answer after which the upload stops (not now, no proof, a gateway failure).
        var failure: ODataError?
        /// Whether a request of the batch is still in doubt when the upload stops.
        var leftInDoubt = false
    }

    /// Maps the answers back to the change sets, in order, and records each. A change set with no
    /// answer stays in doubt.
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
                    guard let answer else {
                        outcome.leftInDoubt = true
                        continue
                    }
                    try record(answer, for: [planned], into: &outcome, in: db)
                }
            case .single(_, let answer):
                try record(answer, for: changeSet, into: &outcome, in: db)
            }
        }
        if items.count < plan.count { outcome.leftInDoubt = true }
        return outcome
    }

    /// Records one answer for the requests it covers: one request, or a whole change set.
    private func record(_ answer: HTTPResponse, for requests: [PlannedRequest], into outcome: inout ChunkOutcome,
                        in db: SQLiteConnection) throws(ODataError) {
        guard let first = requests.first?.request else { return }
        // Built only for a refusal or a failure: quoting the URL costs more than recording an answer.
        func label() -> String {
            requests.count > 1 ? "\(first.method) \(redactedURL(first.url)) (a change set of \(requests.count) requests)"
                : "\(first.method) \(redactedURL(first.url))"
        }
        let table = first.entitySet.flatMap { schema.table(forEntitySet: $0) }
        var document: JSONValue?
        switch AnswerVerdict(answer, to: first, keyColumns: table?.keyColumns ?? [], dialect: dialect, document: &document,
                             locationKey: ServerAssignedKey.locationReader(table: table, model: schema.model, dialect: dialect)) {
        case .applied where requests.count == 1:
            try recorder.acknowledge(first, answer, answer: document, in: db)
            outcome.sent += 1
        case .refused(let kind):
            let message = transport.serviceError(answer, request: label()).message
            if requests.count == 1, conflicts.handles(first, status: answer.status) {
                try RequestQueueTable.markPending(ids: [first.id], in: db)
                outcome.conflicts.append((first, answer.status, message))
                return
            }
            outcome.archived += try recorder.archive(requests.map(\.request), status: answer.status, message: message, kind: kind, in: db)
        case .preconditionRequired:
            try RequestQueueTable.markPending(ids: requests.map(\.request.id), in: db)
            outcome.preconditionRequired += requests.map(\.request)
        case .notNow:
            try RequestQueueTable.markPending(ids: requests.map(\.request.id), in: db)
            if outcome.failure == nil {
                var error = transport.serviceError(answer, request: label())
                error.message += " (" + AnswerVerdict.advice(for: answer) + ")"
                outcome.failure = error
            }
        case .noProof(let reason):
            outcome.leftInDoubt = true
            if outcome.failure == nil { outcome.failure = ODataError(.http, reason) }
        case .applied, .gatewayFailure:
            // A 2xx for a whole change set (an answer that does not fit), a gateway's 502/504.
            outcome.leftInDoubt = true
            if outcome.failure == nil { outcome.failure = transport.serviceError(answer, request: label()) }
        }
    }
}
