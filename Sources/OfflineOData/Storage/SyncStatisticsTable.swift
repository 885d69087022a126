/// The tables `ood_download_statistics` (one row per defining request: its last download) and
/// `ood_upload_statistics` (one row: the last upload). A row is replaced by the next download or
/// upload; the time of the last success is carried over from the row it replaces.
enum SyncStatisticsTable {
    static func recordDownload(_ statistics: DownloadStatistics, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("""
            INSERT INTO ood_download_statistics (defining_request, entities, bytes, pages, duration_ms, expected_entities,
                                                 outcome, message, finished_at, last_success_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (defining_request) DO UPDATE SET
                entities = excluded.entities, bytes = excluded.bytes, pages = excluded.pages,
                duration_ms = excluded.duration_ms, expected_entities = excluded.expected_entities,
                outcome = excluded.outcome, message = excluded.message, finished_at = excluded.finished_at,
                last_success_at = coalesce(excluded.last_success_at, last_success_at)
            """).run([
                .text(statistics.definingRequest), .integer(Int64(statistics.entities)), .integer(Int64(statistics.bytes)),
                .integer(Int64(statistics.pages)), .integer(Int64(statistics.durationMilliseconds)),
                statistics.expectedEntities.map { .integer(Int64($0)) } ?? .null, .text(statistics.outcome.rawValue),
                statistics.message.map(SQLValue.text) ?? .null, .text(statistics.finishedAt),
                statistics.lastSuccessAt.map(SQLValue.text) ?? .null,
            ])
    }

    static func recordUpload(_ statistics: UploadStatistics, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("""
            INSERT INTO ood_upload_statistics (id, sent, archived, bytes, duration_ms, outcome, message, finished_at, last_success_at)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT (id) DO UPDATE SET
                sent = excluded.sent, archived = excluded.archived, bytes = excluded.bytes, duration_ms = excluded.duration_ms,
                outcome = excluded.outcome, message = excluded.message, finished_at = excluded.finished_at,
                last_success_at = coalesce(excluded.last_success_at, last_success_at)
            """).run([
                .integer(Int64(statistics.sent)), .integer(Int64(statistics.archived)), .integer(Int64(statistics.bytes)),
                .integer(Int64(statistics.durationMilliseconds)), .text(statistics.outcome.rawValue),
                statistics.message.map(SQLValue.text) ?? .null, .text(statistics.finishedAt),
                statistics.lastSuccessAt.map(SQLValue.text) ?? .null,
            ])
    }

    /// The last download of each defining request that has one, in the defining requests' order.
    static func downloads(in db: SQLiteConnection) throws(ODataError) -> [DownloadStatistics] {
        let statement = try db.prepare("""
            SELECT s.defining_request, s.entities, s.bytes, s.pages, s.duration_ms, s.expected_entities,
                   s.outcome, s.message, s.finished_at, s.last_success_at
            FROM ood_download_statistics s JOIN ood_defining_request d ON d.name = s.defining_request
            ORDER BY d.position
            """)
        try statement.bind([])
        var result: [DownloadStatistics] = []
        while try statement.step() {
            result.append(DownloadStatistics(
                definingRequest: statement.text(at: 0) ?? "", entities: Int(statement.int(at: 1)),
                bytes: Int(statement.int(at: 2)), pages: Int(statement.int(at: 3)),
                durationMilliseconds: Int(statement.int(at: 4)),
                expectedEntities: statement.isNull(at: 5) ? nil : Int(statement.int(at: 5)),
                outcome: SyncOutcome(rawValue: statement.text(at: 6) ?? "") ?? .failed, message: statement.text(at: 7),
                finishedAt: statement.text(at: 8) ?? "", lastSuccessAt: statement.text(at: 9)))
        }
        return result
    }

    static func lastUpload(in db: SQLiteConnection) throws(ODataError) -> UploadStatistics? {
        let statement = try db.prepare("""
            SELECT sent, archived, bytes, duration_ms, outcome, message, finished_at, last_success_at
            FROM ood_upload_statistics WHERE id = 1
            """)
        try statement.bind([])
        guard try statement.step() else { return nil }
        return UploadStatistics(
            sent: Int(statement.int(at: 0)), archived: Int(statement.int(at: 1)), bytes: Int(statement.int(at: 2)),
            durationMilliseconds: Int(statement.int(at: 3)),
            outcome: SyncOutcome(rawValue: statement.text(at: 4) ?? "") ?? .failed, message: statement.text(at: 5),
            finishedAt: statement.text(at: 6) ?? "", lastSuccessAt: statement.text(at: 7))
    }
}
