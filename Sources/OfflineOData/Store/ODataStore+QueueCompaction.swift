extension ODataStore {
    /// Compacts the request queue now, as each upload does first (unless
    /// ``Options/compactsUploadQueue`` is false); see ``LocalStore/compactQueue()`` and
    /// ``QueueCompaction``. A write: it runs in order with the others. Fails with
    /// ``ODataError/Code/busy`` while an upload of the store runs.
    @discardableResult
    public func compactQueue(completion: @escaping @Sendable (Result<QueueCompaction, ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        return enqueue(lane: { _ in .write }, { opened, _ throws(ODataError) in
            let compaction = try opened.requireOffline("the request queue").compactQueue()
            // Entities created and deleted in the queue left the store.
            let changed = Set(compaction.cancelled.map(\.entitySet))
            if !changed.isEmpty { eventHub.postChanges(changed) }
            return compaction
        }, completion: completion)
    }

    @discardableResult
    public func compactQueue() async throws(ODataError) -> QueueCompaction {
        try await awaitResult { completion in compactQueue(completion: completion) }
    }
}
