/// Conflict policies and what they discarded (docs/CONFLICTS.md).
extension StoreOperation where Output == ConflictPolicies {
    /// The conflict policies the store file keeps (`archive` for all unless set).
    public static var conflictPolicies: StoreOperation<ConflictPolicies> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the conflict policies").conflictPolicies()
        }
    }

    /// Keeps `policy` in the store file as its default (`entitySet` nil) or the set's; every
    /// later upload of the store follows it unless the upload names its own.
    public static func setConflictPolicy(_ policy: ConflictPolicy, entitySet: String? = nil) -> StoreOperation<ConflictPolicies> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            try context.dispatcher.requireOffline("a conflict policy").setConflictPolicy(policy, entitySet: entitySet)
        }
    }
}

extension StoreOperation where Output == [ConflictDetail] {
    /// The local changes conflict policies discarded (server wins), each with the three versions.
    public static var discardedChanges: StoreOperation<[ConflictDetail]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the discarded changes").discardedChanges()
        }
    }
}

extension StoreOperation where Output == Int {
    /// Forgets the record of discarded changes (the app has shown or kept them); how many.
    public static var clearDiscardedChanges: StoreOperation<Int> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the discarded changes").clearDiscardedChanges()
        }
    }
}

extension StoreOperation where Output == [String: [[String]]] {
    /// Each entity set's alternate keys (property paths), the app's before the model's: an upload
    /// reads a create whose key the service assigns back by the first, when its answer was lost.
    public static var alternateKeys: StoreOperation<[String: [[String]]]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the alternate keys").alternateKeys()
        }
    }

    /// Declares `properties` unique per entity in `entitySet` (kept in the store file), so that a
    /// create in doubt there is read back by them rather than left for a decision; an empty list
    /// forgets the declaration.
    public static func setAlternateKey(_ properties: [String], entitySet: String) -> StoreOperation<[String: [[String]]]> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            try context.dispatcher.requireOffline("an alternate key").setAlternateKey(properties, entitySet: entitySet)
        }
    }
}
