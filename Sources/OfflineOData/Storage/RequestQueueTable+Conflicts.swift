/// What a conflict policy (``ConflictTable``, `Sync/Upload/Conflicts`) changes in the queue; the
/// caller holds the transaction.
extension RequestQueueTable {
    /// Gives a request the service refused as a conflict what it is sent with next: the entity's
    /// current ETag on the service and the method and body the policy chose. Pending again: the
    /// refusal proved the service did not apply it, so nothing is in doubt.
    static func prepareResend(id: Int64, etag: String?, method: RequestMethod, body: String?,
                              in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("UPDATE ood_request_queue SET etag = ?2, method = ?3, body = ?4, state = ?5 WHERE id = ?1")
            .run([.integer(id), etag.map(SQLValue.text) ?? .null, .text(method.rawValue), body.map(SQLValue.text) ?? .null,
                  .text(QueueState.pending.rawValue)])
    }
}
