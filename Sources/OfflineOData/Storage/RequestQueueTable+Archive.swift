/// What the error archive's actions (``ErrorArchiveActions``) need of the queue and the archive;
/// the caller holds the transaction.
extension RequestQueueTable {
    /// Moves archived requests back into the queue under their own ids, so that they keep their
    /// place in upload order (ids are AUTOINCREMENT and never reused), as pending requests: the
    /// user decided to send them again, so neither a first-sent date nor a doubt carries over.
    static func requeue(ids: [Int64], in db: SQLiteConnection) throws(ODataError) {
        let move = try db.prepare("""
            INSERT INTO ood_request_queue (id, method, url, body, headers, entity_set, entity_id, etag, content_id,
                                           transaction_id, created_at, first_sent, state, no_merge)
            SELECT id, method, url, body, headers, entity_set, entity_id, etag, content_id,
                   transaction_id, created_at, NULL, ?2, no_merge
            FROM ood_error_archive WHERE id = ?1
            """)
        let remove = try db.prepare("DELETE FROM ood_error_archive WHERE id = ?1")
        for id in ids {
            try move.run([.integer(id), .text(QueueState.pending.rawValue)])
            try remove.run([.integer(id)])
        }
    }

    /// Replaces the body of an archived request.
    static func replaceArchivedBody(id: Int64, body: String, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("UPDATE ood_error_archive SET body = ?2 WHERE id = ?1").run([.integer(id), .text(body)])
    }

    /// Deletes one archived request (one that changes no entity of the store).
    static func deleteArchived(id: Int64, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("DELETE FROM ood_error_archive WHERE id = ?1").run([.integer(id)])
    }

    /// The id of the entity's earliest request, queued or archived; nil when it has none.
    static func earliestRequestID(entitySet: String, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> Int64? {
        try db.scalarInt("""
            SELECT min(id) FROM (
                SELECT id FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = ?2
                UNION ALL
                SELECT id FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = ?2
            )
            """, [.text(entitySet), .integer(entityID)])
    }

    /// How many archived requests the entity has.
    static func archivedCount(entitySet: String, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = ?2",
                             [.text(entitySet), .integer(entityID)]) ?? 0)
    }

    /// The method and body of the entity's requests after `id`, queued or archived, in order.
    static func laterChanges(entitySet: String, entityID: Int64, after id: Int64,
                             in db: SQLiteConnection) throws(ODataError) -> [(method: RequestMethod, body: String?)] {
        let select = try db.prepare("""
            SELECT method, body FROM (
                SELECT id, method, body FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = ?2 AND id > ?3
                UNION ALL
                SELECT id, method, body FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = ?2 AND id > ?3
            ) ORDER BY id
            """)
        try select.bind([.text(entitySet), .integer(entityID), .integer(id)])
        var changes: [(method: RequestMethod, body: String?)] = []
        while try select.step() { changes.append((try storedMethod(select.text(at: 0)), select.text(at: 1))) }
        return changes
    }

    /// Drops the entity's requests from `id` on, queued or archived (they build on the request
    /// `id`); returns how many.
    static func dropRequests(entitySet: String, entityID: Int64, from id: Int64, in db: SQLiteConnection) throws(ODataError) -> Int {
        let arguments: [SQLValue] = [.text(entitySet), .integer(entityID), .integer(id)]
        var count = 0
        for table in ["ood_error_archive", "ood_request_queue"] {
            try db.prepare("DELETE FROM \(table) WHERE entity_set = ?1 AND entity_id = ?2 AND id >= ?3").run(arguments)
            count += db.changes
        }
        return count
    }
}
