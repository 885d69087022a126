/// The three forms every ``StoreOperation`` takes, written once: a completion closure, `async`,
/// and blocking.
extension ODataStore {
    /// Starts `operation` and returns its handle at once; `completion` runs exactly once, on one of
    /// the store's threads, with the result, the error, or ``ODataError/Code/aborted`` when
    /// cancelled before it ran.
    ///
    /// ```swift
    /// store.start(.request(ODataRequest(method: "GET", url: "Airports"))) { result in ... }
    /// ```
    @discardableResult
    public func start<Output>(_ operation: StoreOperation<Output>,
                              completion: @escaping @Sendable (Result<Output, ODataError>) -> Void) -> RequestHandle {
        start(operation, runsHereWhenIdle: false, completion: completion)
    }

    /// ``start(_:completion:)``; with `runsHereWhenIdle`, for a caller that waits for the result
    /// anyway, a download, upload or check may run on the calling thread (see ``submit(_:runsHereWhenIdle:)``).
    private func start<Output>(_ operation: StoreOperation<Output>, runsHereWhenIdle: Bool,
                               completion: @escaping @Sendable (Result<Output, ODataError>) -> Void) -> RequestHandle {
        let handle = RequestHandle()
        let eventHub = self.eventHub
        handle.onAbort {
            eventHub.run { completion(.failure(ODataError(.aborted, "the request was cancelled before it ran"))) }
        }
        submit(OperationJob(operation, handle: handle, store: self, completion: completion), runsHereWhenIdle: runsHereWhenIdle)
        return handle
    }

    /// Runs `operation` and returns its result; cancelling the task cancels it (see ``RequestHandle``).
    @discardableResult
    public func perform<Output>(_ operation: StoreOperation<Output>) async throws(ODataError) -> Output {
        let slot = HandleSlot()
        let result: Result<Output, ODataError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, ODataError>, Never>) in
                slot.set(start(operation) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            slot.cancel()
        }
        return try result.get()
    }

    /// Runs `operation` and blocks the calling thread until its result is there.
    ///
    /// A download, upload or check runs on the calling thread itself when no other runs (its
    /// progress callbacks too): the thread waits anyway, and the hand-overs to the store's sync
    /// thread and back cost as much as a short exchange with the service.
    ///
    /// - Throws: ``ODataError/Code/busy`` on one of this store's own threads (inside one of its
    ///   completions or event handlers), where the wait could be for the very thread that waits;
    ///   use ``start(_:completion:)`` there.
    @discardableResult
    public func performAndWait<Output>(_ operation: StoreOperation<Output>) throws(ODataError) -> Output {
        guard !StoreThreadMarker.isCurrentThreadOwned(by: owner) else {
            throw ODataError(.busy, "a blocking call into the store from inside one of its own callbacks would wait for itself; "
                             + "submit the request with a completion instead")
        }
        let box = ResultBox<Output>()
        // The caller only waits: a job of the idle sync lane runs here rather than on the lane's thread.
        start(operation, runsHereWhenIdle: true) { box.put($0) }
        return try box.take().get()
    }
}
