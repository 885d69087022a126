
/// How every public operation of ``ODataStore`` is built: a job with a completion closure, and
/// the `async` and blocking forms on top of it.
extension ODataStore {
    /// Submits `work` for `lane` and returns its handle; `completion` runs exactly once, on one of
    /// the store's threads, with the result, the error, or ``ODataError/Code/aborted`` when
    /// cancelled before it ran.
    func enqueue<T: Sendable>(lane: @escaping @Sendable (RequestDispatcher) -> StoreJob.Lane,
                              _ work: @escaping @Sendable (RequestDispatcher, RequestHandle) throws(ODataError) -> T,
                              completion: @escaping @Sendable (Result<T, ODataError>) -> Void) -> RequestHandle {
        enqueue(planning: { opened in (lane(opened), work) }, completion: completion)
    }

    /// Like ``enqueue(lane:_:completion:)``, with the lane and the work decided together once the
    /// store is open: what choosing the lane works out (a request's resolution) is the work's.
    func enqueue<T: Sendable>(planning: @escaping @Sendable (RequestDispatcher) -> (StoreJob.Lane, @Sendable (RequestDispatcher, RequestHandle) throws(ODataError) -> T),
                              completion: @escaping @Sendable (Result<T, ODataError>) -> Void) -> RequestHandle {
        let handle = RequestHandle()
        let eventHub = self.eventHub
        handle.onAbort {
            eventHub.run { completion(.failure(ODataError(.aborted, "the request was cancelled before it ran"))) }
        }
        submit(StoreJob(handle: handle, plan: { opened in
            let (lane, work) = planning(opened)
            return StoreJob.Plan(lane: lane, perform: { opened in
                let result: Result<T, ODataError>
                do throws(ODataError) {
                    result = .success(try work(opened, handle))
                } catch {
                    result = .failure(error)
                }
                return { groupFailure in completion(groupFailure.map { .failure($0) } ?? result) }
            })
        }, fail: { error in completion(.failure(error)) }))
        return handle
    }

    /// The `async` form of a completion-closure operation; cancelling the task cancels the request.
    func awaitResult<T: Sendable>(
        _ start: (@escaping @Sendable (Result<T, ODataError>) -> Void) -> RequestHandle
    ) async throws(ODataError) -> T {
        let slot = HandleSlot()
        let result: Result<T, ODataError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ODataError>, Never>) in
                slot.set(start { continuation.resume(returning: $0) })
            }
        } onCancel: {
            slot.cancel()
        }
        return try result.get()
    }

    /// The blocking form of any completion-closure operation of this store:
    /// `try store.waitFor { store.route(url: url, completion: $0) }`.
    ///
    /// - Throws: ``ODataError/Code/busy`` on one of this store's own threads (inside one of its
    ///   callbacks), where the wait could be for the very thread that waits.
    public func waitFor<T: Sendable>(
        _ start: (@escaping @Sendable (Result<T, ODataError>) -> Void) -> RequestHandle
    ) throws(ODataError) -> T {
        guard !StoreThreadMarker.isCurrentThreadOwned(by: owner) else {
            throw ODataError(.busy, "a blocking call into the store from inside one of its own callbacks would wait for itself; "
                             + "submit the request with a completion instead")
        }
        let box = ResultBox<T>()
        _ = start { box.put($0) }
        return try box.take().get()
    }
}

/// The handle of an awaited request, which the task's cancellation may reach before it exists.
private final class HandleSlot: Sendable {
    private let state = Protected<(handle: RequestHandle?, cancelled: Bool)>((nil, false))

    func set(_ handle: RequestHandle) {
        let cancelNow = state.withLock { state -> Bool in
            state.handle = handle
            return state.cancelled
        }
        if cancelNow { handle.cancel() }
    }

    func cancel() {
        let handle = state.withLock { state -> RequestHandle? in
            state.cancelled = true
            return state.handle
        }
        handle?.cancel()
    }
}

/// One result, handed from a store thread to a thread that waits for it.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let condition = ConditionLock()
    /// Guarded by `condition`.
    private var result: Result<T, ODataError>?

    func put(_ value: Result<T, ODataError>) {
        condition.withLock {
            result = value
            condition.broadcast()
        }
    }

    func take() -> Result<T, ODataError> {
        condition.withLock {
            while true {
                if let result { return result }
                condition.wait()
            }
        }
    }
}
