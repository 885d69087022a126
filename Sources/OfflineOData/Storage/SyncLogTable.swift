/// The table `ood_sync_log`: the store's bounded record of downloads, uploads and refusals. Each
/// append drops what lies beyond ``SyncLogEntry/capacity``, oldest first, in the same statement
/// group, so the table never grows past it.
enum SyncLogTable {
    static func append(_ entry: SyncLogEntry, in db: SQLiteConnection, capacity: Int = SyncLogEntry.capacity) throws(ODataError) {
        try db.prepare("""
            INSERT INTO ood_sync_log (at, kind, defining_request, request_id, entities, bytes, remaining, duration_ms, outcome, message)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """).run([
                .text(entry.at), .text(entry.kind.rawValue), entry.definingRequest.map(SQLValue.text) ?? .null,
                entry.requestID.map(SQLValue.integer) ?? .null, optional(entry.entities), optional(entry.bytes),
                optional(entry.remaining), optional(entry.durationMilliseconds), .text(entry.outcome.rawValue),
                entry.message.map(SQLValue.text) ?? .null,
            ])
        // Ids only grow (AUTOINCREMENT), so the newest `capacity` rows are those above this bound.
        try db.prepare("DELETE FROM ood_sync_log WHERE id <= (SELECT max(id) FROM ood_sync_log) - ?1")
            .run([.integer(Int64(capacity))])
    }

    /// The newest `limit` entries (all when nil), newest first.
    static func entries(limit: Int?, in db: SQLiteConnection) throws(ODataError) -> [SyncLogEntry] {
        let statement = try db.prepare("""
            SELECT id, at, kind, defining_request, request_id, entities, bytes, remaining, duration_ms, outcome, message
            FROM ood_sync_log ORDER BY id DESC LIMIT ?1
            """)
        try statement.bind([.integer(Int64(limit ?? -1))])
        var result: [SyncLogEntry] = []
        while try statement.step() {
            func number(_ column: Int) -> Int? { statement.isNull(at: column) ? nil : Int(statement.int(at: column)) }
            result.append(SyncLogEntry(
                id: statement.int(at: 0), at: statement.text(at: 1) ?? "",
                kind: SyncLogEntry.Kind(rawValue: statement.text(at: 2) ?? "") ?? .download,
                definingRequest: statement.text(at: 3), requestID: statement.isNull(at: 4) ? nil : statement.int(at: 4),
                entities: number(5), bytes: number(6), remaining: number(7), durationMilliseconds: number(8),
                outcome: SyncOutcome(rawValue: statement.text(at: 9) ?? "") ?? .failed, message: statement.text(at: 10)))
        }
        return result
    }

    private static func optional(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
}
