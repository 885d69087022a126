/// Automatic indexes made where no download comes (issue 38): on demand, and by the store API
/// itself, off the read path, once a read shape is seen often enough.
extension StoreOperation where Output == [StoreIndex] {
    /// Makes now the automatic indexes the reads seen so far call for (each shape read
    /// ``LocalStore/automaticIndexThreshold`` times that no index serves), as a download does after
    /// its data, and gives those made (none when nothing is due). On the sync lane, with the
    /// downloads and uploads: it takes the write lock while it builds (reads go on). The store API
    /// also starts it by itself when a read shape reaches the threshold in a session
    /// (``ODataStore/startAutomaticIndexesIfDue(_:)``), so a store used offline for days does not
    /// wait for a download to stop scanning.
    public static var createAutomaticIndexes: StoreOperation<[StoreIndex]> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            try context.dispatcher.requireOffline("automatic indexes").createAutomaticIndexes()
        }
    }
}

extension ODataStore {
    /// Starts ``StoreOperation/createAutomaticIndexes`` when a read shape reached the threshold
    /// since the last look: after the read that reached it returned, in a job of its own, so no
    /// read waits for an index to be built; the reads after it use the index.
    func startAutomaticIndexesIfDue(_ dispatcher: RequestDispatcher) {
        guard let offline = dispatcher.offline, offline.readShapes.takeDue() else { return }
        start(.createAutomaticIndexes) { _ in }
    }
}
