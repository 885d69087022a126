/// The store's events as an `AsyncSequence`, for `for await` loops beside ``ODataStore/subscribe(_:)``.
extension ODataStore {
    /// The events of the store from now on (each use subscribes anew), in the order they happened.
    ///
    /// ```swift
    /// for await event in store.events {
    ///     if case .entitySetsChanged(let sets) = event { refresh(sets) }
    /// }
    /// ```
    ///
    /// The sequence ends after the store's last event, `stateChanged(.closed)`, when the store
    /// closes (``close()``, or its `deinit` when the caller forgot). Ending the loop early or
    /// cancelling its task unsubscribes. Events are buffered while the loop is busy, none dropped.
    public var events: AsyncStream<StoreEvent> {
        let hub = eventHub
        return AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let id = hub.subscribe({ event in continuation.yield(event) }, onEnd: { continuation.finish() })
            continuation.onTermination = { _ in hub.unsubscribe(id) }
        }
    }
}
