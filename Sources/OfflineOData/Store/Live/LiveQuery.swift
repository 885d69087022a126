/// A watched read (``ODataStore/watch(_:interval:_:)``): its answers keep coming until
/// ``cancel()`` or the store closes.
public final class LiveQuery: Sendable {
    private let hub: LiveQueryHub
    private let watcher: LiveQueryHub.Watcher

    init(hub: LiveQueryHub, watcher: LiveQueryHub.Watcher) {
        self.hub = hub
        self.watcher = watcher
    }

    /// Stops the answers. When this returns no answer is being delivered or will be, except when
    /// called from the watch's own handler (which then returns normally). Harmless twice.
    public func cancel() { hub.cancel(watcher) }

    /// How many times the read ran (the first answer included): a commit that changed none of the
    /// tables it reads does not run it.
    public var runCount: Int { hub.counts(of: watcher).runs }

    /// How many answers were delivered: a run whose answer equals the last one delivers none.
    public var deliveryCount: Int { hub.counts(of: watcher).deliveries }

    /// The tables of the store file the read depends on (see docs/ARCHITECTURE.md, "Live queries").
    package var dependencies: LiveDependencies { hub.dependencies(of: watcher) }
}
