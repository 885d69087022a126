/// What applying the queue's compaction needs of the queue; the caller holds the transaction.
extension RequestQueueTable {
    /// Replaces the body of a queued request (later requests' values merged into it).
    static func replaceBody(id: Int64, body: String, in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("UPDATE ood_request_queue SET body = ?2 WHERE id = ?1") { update throws(ODataError) in
            try update.run([.integer(id), .text(body)])
        }
    }

    /// Removes queued requests that the compaction made unnecessary.
    static func remove(ids: [Int64], in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("DELETE FROM ood_request_queue WHERE id = ?1") { delete throws(ODataError) in
            for id in ids { try delete.run([.integer(id)]) }
        }
    }
}
