/// The store's record of its syncs: statistics per defining request and of the last upload, and
/// the bounded sync log (``SyncLogEntry``). Recording never fails a download or an upload: what
/// cannot be written is said in the outcome's ``DownloadOutcome/recordingProblem`` (or the error's
/// message), and one row is written per download, upload or refusal, never per page.
extension LocalStore {
    /// The last downloads, the queue's depth and age, what needs a decision and the last upload.
    package func syncStatistics() throws(ODataError) -> SyncStatistics {
        let queue = try file.queuedRequests()
        let archive = try file.errorArchive()
        let (downloads, lastUpload) = try file.withReadConnection { db, _ throws(ODataError) in
            (try SyncStatisticsTable.downloads(in: db), try SyncStatisticsTable.lastUpload(in: db))
        }
        let oldest = queue.map(\.createdAt).min()
        return SyncStatistics(
            downloads: downloads, queuedRequests: queue.count, oldestQueuedAt: oldest,
            oldestQueuedAgeSeconds: oldest.flatMap(secondsSince).map { Int($0) }, queuedInDoubt: queue.filter { $0.state == .inDoubt }.count,
            archivedRequests: archive.count, archivedInDoubt: archive.filter { $0.kind == .inDoubt }.count,
            lastUpload: lastUpload)
    }

    /// The newest `limit` entries of the sync log (all of them when nil), newest first.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for a negative limit.
    package func syncLog(limit: Int? = nil) throws(ODataError) -> [SyncLogEntry] {
        if let limit, limit < 0 { throw ODataError(.misuse, "the log's limit must be 0 or more, not \(limit)") }
        return try file.withReadConnection { db, _ throws(ODataError) in try SyncLogTable.entries(limit: limit, in: db) }
    }

    /// Records a download that succeeded, on `db` inside its transaction. Returns what could not
    /// be written, if anything.
    func recordDownload(_ outcome: DownloadOutcome, startedAt started: Double, in db: SQLiteConnection) -> String? {
        let now = utcTimestamp()
        let statistics = DownloadStatistics(
            definingRequest: outcome.definingRequest, entities: outcome.entities, bytes: outcome.bytes, pages: outcome.pages,
            durationMilliseconds: Self.milliseconds(since: started), expectedEntities: outcome.expectedEntities,
            outcome: .succeeded, message: nil, finishedAt: now, lastSuccessAt: now)
        return recording { () throws(ODataError) in
            try SyncStatisticsTable.recordDownload(statistics, in: db)
            try SyncLogTable.append(Self.logEntry(statistics), in: db)
        }
    }

    /// Records a download that failed or was stopped, after its transaction rolled back; `reached`
    /// is its last progress. Returns `error` with a note when the record could not be written.
    func recordFailedDownload(of name: String, error: ODataError, reached: DownloadProgress?,
                              startedAt started: Double) -> ODataError {
        let statistics = DownloadStatistics(
            definingRequest: name, entities: reached?.entities ?? 0, bytes: reached?.bytes ?? 0, pages: reached?.pages ?? 0,
            durationMilliseconds: Self.milliseconds(since: started), expectedEntities: reached?.expectedEntities,
            outcome: error.code == .aborted ? .stopped : .failed, message: error.message, finishedAt: utcTimestamp(),
            lastSuccessAt: nil)
        let problem = recording { () throws(ODataError) in
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    try SyncStatisticsTable.recordDownload(statistics, in: db)
                    try SyncLogTable.append(Self.logEntry(statistics), in: db)
                }
            }
        }
        return Self.noting(problem, in: error)
    }

    /// Records an upload (its outcome, or the error that stopped it) with one row per request it
    /// moved to the error archive. `queuedBefore` and `archivedBefore` are the queue and the
    /// archive's ids when it started.
    func recordUpload(_ result: Result<UploadOutcome, ODataError>, queuedBefore: [QueuedRequest],
                      archivedBefore: Set<Int64>, startedAt started: Double) -> Result<UploadOutcome, ODataError> {
        let now = utcTimestamp()
        var problem: String?
        let queuedAfter = (try? file.queuedRequests()) ?? []
        let archivedAfter = (try? file.errorArchive()) ?? []
        let stillQueued = Set(queuedAfter.map(\.id))
        let archivedIDs = Set(archivedAfter.map(\.request.id))
        let applied = queuedBefore.filter { !stillQueued.contains($0.id) && !archivedIDs.contains($0.id) }
        let refusals = archivedAfter.filter { !archivedBefore.contains($0.request.id) }
        let statistics: UploadStatistics
        switch result {
        case .success(let outcome):
            statistics = UploadStatistics(
                sent: outcome.sent, archived: outcome.archived, bytes: applied.reduce(0) { $0 + ($1.body?.utf8.count ?? 0) },
                durationMilliseconds: Self.milliseconds(since: started), outcome: .succeeded, message: nil,
                finishedAt: now, lastSuccessAt: now)
        case .failure(let error):
            statistics = UploadStatistics(
                sent: applied.count, archived: refusals.count, bytes: applied.reduce(0) { $0 + ($1.body?.utf8.count ?? 0) },
                durationMilliseconds: Self.milliseconds(since: started),
                outcome: error.code == .aborted ? .stopped : .failed, message: error.message, finishedAt: now,
                lastSuccessAt: nil)
        }
        problem = recording { () throws(ODataError) in
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    try SyncStatisticsTable.recordUpload(statistics, in: db)
                    for refusal in refusals {
                        try SyncLogTable.append(Self.logEntry(refusal), in: db)
                    }
                    try SyncLogTable.append(SyncLogEntry(
                        at: now, kind: .upload, entities: statistics.sent, bytes: statistics.bytes,
                        remaining: queuedAfter.count, durationMilliseconds: statistics.durationMilliseconds,
                        outcome: statistics.outcome, message: statistics.message), in: db)
                }
            }
        }
        switch result {
        case .success(var outcome):
            outcome.recordingProblem = problem
            return .success(outcome)
        case .failure(let error):
            return .failure(Self.noting(problem, in: error))
        }
    }

    private static func logEntry(_ statistics: DownloadStatistics) -> SyncLogEntry {
        SyncLogEntry(at: statistics.finishedAt, kind: .download, definingRequest: statistics.definingRequest,
                     entities: statistics.entities, bytes: statistics.bytes,
                     remaining: statistics.expectedEntities.map { max(0, $0 - statistics.entities) },
                     durationMilliseconds: statistics.durationMilliseconds, outcome: statistics.outcome,
                     message: statistics.message)
    }

    private static func logEntry(_ refusal: ArchivedRequest) -> SyncLogEntry {
        let outcome: SyncOutcome = switch refusal.kind {
        case .refused: .refused
        case .conflict: .conflict
        case .inDoubt: .inDoubt
        case .modelChanged: .modelChanged
        }
        let status = refusal.httpStatus.map { "HTTP \($0): " } ?? ""
        return SyncLogEntry(at: refusal.failedAt, kind: .refusal, requestID: refusal.request.id, outcome: outcome,
                            message: "\(refusal.request.method) \(refusal.request.url): \(status)\(refusal.message)")
    }

    /// Runs a write of the record; its failure is returned as text, never thrown.
    private func recording(_ write: () throws(ODataError) -> Void) -> String? {
        do throws(ODataError) {
            try write()
            return nil
        } catch {
            return "the sync statistics and log could not be written: \(error.message)"
        }
    }

    private static func noting(_ problem: String?, in error: ODataError) -> ODataError {
        guard let problem else { return error }
        var noted = error
        noted.message += " (\(problem))"
        return noted
    }

    static func milliseconds(since started: Double) -> Int {
        Int(max(0, WriteHolder.monotonicSeconds() - started) * 1000)
    }
}
