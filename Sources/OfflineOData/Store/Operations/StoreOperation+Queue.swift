/// The request queue, the error archive, and undoing local changes.
extension StoreOperation where Output == [QueuedRequest] {
    /// The requests waiting for an upload, in upload order.
    public static var requestQueue: StoreOperation<[QueuedRequest]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the request queue").file.queuedRequests()
        }
    }
}

extension StoreOperation where Output == QueueCompaction {
    /// Compacts the request queue now, as each upload does first (unless
    /// ``ODataStore/Options/compactsUploadQueue`` is false); see ``LocalStore/compactQueue()`` and
    /// ``QueueCompaction``. A write: it runs in order with the others. Fails with
    /// ``ODataError/Code/busy`` while an upload of the store runs.
    public static var compactQueue: StoreOperation<QueueCompaction> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            let compaction = try context.dispatcher.requireOffline("the request queue").compactQueue()
            // Entities created and deleted in the queue left the store.
            context.announceChanges(compaction.cancelled.map(\.entitySet))
            return compaction
        }
    }
}

extension StoreOperation where Output == [ArchivedRequest] {
    /// The requests the service refused, with its answers.
    public static var errorArchive: StoreOperation<[ArchivedRequest]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the error archive").file.errorArchive()
        }
    }
}

extension StoreOperation where Output == Int {
    /// Discards one archived request (by id) or all (nil) with the requests that build on it; see
    /// ``LocalStore/deleteArchivedRequests(id:)``. Gives how many requests were dropped. A write:
    /// it runs in order with the others.
    public static func deleteArchivedRequests(id: Int64? = nil) -> StoreOperation<Int> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the error archive").deleteArchivedRequests(id: id)
        }
    }

    /// Sends an archived request again, its body corrected if `body` is given; see
    /// ``LocalStore/requeueArchivedRequest(id:body:)``. Gives how many requests went back to the
    /// queue. A write: it runs in order with the others.
    public static func requeueArchivedRequest(id: Int64, body: String? = nil) -> StoreOperation<Int> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the error archive").requeueArchivedRequest(id: id, body: body)
        }
    }
}

extension StoreOperation where Output == UndoOutcome {
    /// Reverts the local changes of the entity at `url`: its queued and refused requests are
    /// dropped and it gets back the values the service last sent (or disappears if it was created
    /// offline). A write: it runs in order with the others. See ``LocalUndo``.
    public static func undoPendingChanges(url: String) -> StoreOperation<UndoOutcome> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            let outcome = try context.dispatcher.requireOffline("an undo").undoPendingChanges(url: url)
            if outcome.action != .nothing { context.announceChanges([outcome.entitySet]) }
            return outcome
        }
    }
}
