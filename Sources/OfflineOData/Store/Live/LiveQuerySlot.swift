/// Where an ``ODataStore`` keeps its ``LiveQueryHub``: made by the first watch, over the store
/// file that watch reads, and shut down when the store closes (no hub is made after that).
final class LiveQuerySlot: Sendable {
    private let slot = Protected<(hub: LiveQueryHub?, isClosed: Bool)>((nil, false))

    /// The hub of `file`, made on first use; nil once the store closed.
    func hub(for file: StoreFile) -> LiveQueryHub? {
        slot.withLock { state -> LiveQueryHub? in
            guard !state.isClosed else { return nil }
            if let hub = state.hub { return hub }
            let hub = LiveQueryHub(file: file)
            state.hub = hub
            return hub
        }
    }

    /// The hub, if a watch made one (for tests).
    var current: LiveQueryHub? { slot.withLock { $0.hub } }

    /// Ends every watch and the hub's thread; later watches are refused.
    func shutDown() {
        let hub = slot.withLock { state -> LiveQueryHub? in
            state.isClosed = true
            defer { state.hub = nil }
            return state.hub
        }
        hub?.shutDown()
    }
}
