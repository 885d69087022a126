/// What an operation's work is given when it runs: the open store, its cancellation, and where
/// to announce what it changed. Used on the one thread that runs the work.
final class StoreOperationContext {
    /// The open store's parts: the offline store, the service, the router. Replaced when the work
    /// migrates the store to the service's new model (``adopt(_:)``).
    private(set) var dispatcher: RequestDispatcher
    /// The request's handle; its ``RequestHandle/cancellation`` stops a running transfer.
    let handle: RequestHandle
    /// The store's events, for what the work reports as it goes (progress, each download's commit).
    let events: EventHub
    /// The options the store was opened with.
    let options: ODataStore.Options
    /// The store, while it is still referenced.
    private weak var store: ODataStore?
    /// The entity sets the work changed, announced once its result is final (``announceChanges(_:)``).
    private(set) var changedSets: Set<String> = []

    init(dispatcher: RequestDispatcher, handle: RequestHandle, events: EventHub, options: ODataStore.Options, store: ODataStore?) {
        self.dispatcher = dispatcher
        self.handle = handle
        self.events = events
        self.options = options
        self.store = store
    }

    /// Starts the automatic indexes the reads so far call for, when a read shape just reached the
    /// threshold (``ODataStore/startAutomaticIndexesIfDue(_:)``).
    func startAutomaticIndexesIfDue() {
        store?.startAutomaticIndexesIfDue(dispatcher)
    }

    /// Makes `offline` (the store file under a migrated model) the store's, for this work and the
    /// requests that start after it; returns the new dispatcher.
    @discardableResult
    func adopt(_ offline: LocalStore) throws(ODataError) -> RequestDispatcher {
        let router = RequestRouter(mode: options.mode, model: offline.model, dialect: offline.dialect,
                                   definingRequests: try offline.definingRequests(), hasOfflineStore: true,
                                   hasOnlineStore: dispatcher.online != nil)
        let replacement = RequestDispatcher(offline: offline, online: dispatcher.online, router: router, model: offline.model,
                                            dialect: offline.dialect)
        dispatcher = replacement
        store?.replaceDispatcher(replacement)
        return replacement
    }

    /// Migrates the file to `document`'s model (``LocalStore/adoptModel(_:)``) and adopts it. The
    /// store's live queries are held from before the migration commits until they are planned
    /// under the new model, so none reads the new tables with the old model's columns.
    @discardableResult
    func migrateAndAdopt(_ offline: LocalStore, to document: (text: String, model: MetadataModel, record: ServiceModelRecord))
        throws(ODataError) -> LocalStore {
        let hub = store?.liveQueries.current
        hub?.holdRuns()
        defer { hub?.releaseRuns() }
        let migrated = try offline.adoptModel(document).store
        try adopt(migrated)
        return migrated
    }

    /// Remembers `key` as the store's key (``ODataStore/key``) after a rekey of its file.
    func storeKeyChanged(to key: StoreKey?) {
        store?.currentKey.withLock { $0 = key }
    }

    /// Where the store is now; closed once it is gone.
    var storeState: StoreState { store?.state ?? .closed }

    /// Runs `body` as the store's one running download or upload: the store is in `state`
    /// meanwhile (with its events), and ``ODataStore/close()`` cancels it.
    func runningSync<T>(as state: StoreState, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        guard let store else { throw ODataStore.closedError }
        return try store.runningSyncOperation(handle, state: state, body)
    }

    /// Announces `sets` as changed when the operation completes successfully: for a local write,
    /// after its group committed, so no subscriber reads before the change is durable.
    func announceChanges<S: Sequence<String>>(_ sets: S) {
        changedSets.formUnion(sets)
    }
}
