/// Applies ``QueueCompaction`` to a store's request queue, durably and whole: the queue is read,
/// compacted and rewritten in one SQLite transaction, so a process killed meanwhile leaves the
/// queue as it was or compacted, never half. Entities created and deleted within the queue leave
/// the store in the same transaction (as their uploaded delete would have removed them).
///
/// Runs at the start of each upload (after requests in doubt are settled) unless turned off, and
/// on demand (``LocalStore/compactQueue()``); the caller holds the upload lock, so no upload
/// reads a request while its body changes.
struct QueueCompactor {
    let schema: StoreSchema

    func compact(_ file: StoreFile) throws(ODataError) -> QueueCompaction {
        let keys = keyProperties
        return try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) -> QueueCompaction in
                let queue = try RequestQueueTable.all(in: db)
                let compaction = QueueCompaction.compact(queue, keyProperties: keys)
                guard !compaction.dropped.isEmpty else { return compaction }
                let bodies = Dictionary(queue.map { ($0.id, $0.body) }, uniquingKeysWith: { first, _ in first })
                for request in compaction.queue where compaction.replaced[request.id] != nil {
                    if let body = request.body, bodies[request.id] != body {
                        try RequestQueueTable.replaceBody(id: request.id, body: body, in: db)
                    }
                }
                try RequestQueueTable.remove(ids: compaction.dropped, in: db)
                for entity in compaction.cancelled {
                    guard let table = schema.table(forEntitySet: entity.entitySet) else {
                        throw ODataError(.internalError, "entity set '\(entity.entitySet)' of a queued request has no table")
                    }
                    try EntityDeletion.delete(entityID: entity.entityID, from: table, on: db)
                }
                return compaction
            }
        }
    }

    /// Each entity set's key property names, for ``QueueCompaction/compact(_:keyProperties:)``.
    var keyProperties: [String: [String]] {
        var keys: [String: [String]] = [:]
        for table in schema.tables { keys[table.entitySet] = table.keyColumns.map(\.name) }
        return keys
    }
}
