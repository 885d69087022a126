/// The handle of an awaited operation (``ODataStore/perform(_:)``), which the task's cancellation
/// may reach before the handle exists.
final class HandleSlot: Sendable {
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
