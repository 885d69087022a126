/// The store's conflict policies and the record of changes they discarded (docs/CONFLICTS.md).
extension LocalStore {
    /// The policies the store file keeps.
    package func conflictPolicies() throws(ODataError) -> ConflictPolicies {
        try ConflictPolicies.load(from: file)
    }

    /// Keeps `policy` as the store's default (`entitySet` nil) or the set's.
    /// - Throws: ``ODataError/Code/notFound`` for a set the model does not have.
    package func setConflictPolicy(_ policy: ConflictPolicy, entitySet: String?) throws(ODataError) -> ConflictPolicies {
        if let entitySet, schema.table(forEntitySet: entitySet) == nil {
            throw ODataError(.notFound, "the store has no entity set '\(entitySet)' to set a conflict policy for")
        }
        return try ConflictPolicies.record(policy, entitySet: entitySet, in: file)
    }

    /// The changes conflict policies discarded (server wins), oldest first.
    package func discardedChanges() throws(ODataError) -> [ConflictDetail] {
        try file.withConnection { db throws(ODataError) in try ConflictTable.discarded(in: db) }
    }

    /// Forgets the record of discarded changes; returns how many were forgotten.
    package func clearDiscardedChanges() throws(ODataError) -> Int {
        try file.requireWritable()
        return try file.withConnection { db throws(ODataError) -> Int in
            try db.transaction { () throws(ODataError) -> Int in try ConflictTable.clearDiscarded(in: db) }
        }
    }
}
