/// The store applications program against: one request API for an offline store, an online
/// store, or both with a router between them (DESIGN.md §4.3–§4.6).
///
/// ```swift
/// var options = ODataStore.Options(path: "travel.store", serviceRoot: "https://host/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/")
/// options.definingRequests = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'")]
/// let store = ODataStore.open(options)           // returns at once
/// let agencies = try await store.get("TravelagencyCollection?$filter=city eq 'Boston'")
/// ```
///
/// - **No caller waits for "open".** ``open(_:)`` returns at once; opening (the file, `$metadata`,
///   the first download of a new store) runs on a thread of the store's. Requests issued
///   meanwhile are held and run in the order issued once the store is ready; if opening fails,
///   each completes with that error.
/// - **Every request completes exactly once**, through `async`/`await` or a completion closure,
///   with its result or an ``ODataError``; see ``RequestHandle`` for cancellation.
/// - **Threads.** Reads run side by side (each on its own SQLite connection, beside a running
///   download: a read sees a defining request's data before or after its transaction, never
///   half); writes run one at a time in the order issued, and a read issued while writes are
///   still queued runs after them; downloads and uploads run one at a time. Completions and
///   events run on the store's threads. From there, a non-blocking call into the same store
///   works; a blocking one (``executeAndWait(_:)``) answers ``ODataError/Code/busy`` instead of
///   waiting for itself.
/// - **Events** (``subscribe(_:)``, or ``events`` as an `AsyncSequence`): state changes,
///   progress, "first download complete", coalesced "entity sets changed", and upload requests
///   the service refused.
/// - **Closing.** ``close()`` closes the store; one that is dropped without it closes in `deinit`.
public final class ODataStore: @unchecked Sendable {
    /// How to open a store.
    public struct Options: Sendable {
        /// The store file; nil for a store that works online only.
        public var path: String?
        /// The OData service. When nil, a store file's own service root is used (the one it was
        /// created with); with neither, the store works offline only. A new file, or one without a
        /// root, keeps the root given here. A root that differs from the file's is used while the
        /// store is open and left out of the file, unless ``savesServiceRoot``; delta links of
        /// another service are not followed (such a download is a full one).
        public var serviceRoot: String?
        /// Whether a ``serviceRoot`` that differs from the file's replaces it in the file, for every
        /// later open; the file's delta links are dropped with the old root.
        public var savesServiceRoot = false
        /// The service's `$metadata` document. Needed only to create a store file without asking
        /// the service; otherwise the file's own copy is used, or the service's is fetched.
        public var metadata: String?
        /// The dialect, when it should not follow the `$metadata` document's version.
        public var dialect: Dialect?
        /// The reads whose results the offline store holds. Given for a new file; for an existing
        /// file, a non-empty list replaces the stored one (requests kept unchanged keep their
        /// download state).
        public var definingRequests: [DefiningRequest] = []
        /// Indexes the store file should have (``IndexDeclaration``), made when it is created or
        /// opened if it lacks them; indexes made before stay.
        public var indexes: [IndexDeclaration] = []
        public var mode: WorkingMode = .mixed
        public var http = HTTPOptions()
        /// The limits on a read's URL (a request is not trusted to be small): its length in bytes
        /// (1 MiB by default), nesting (100) and binary operators in one expression (20,000, which
        /// bounds a `$filter`); a longer or deeper one is refused with ``ODataError/Code/syntax``.
        public var requestLimits: URLLimits = LocalReader.defaultParserLimits
        /// Asked of V4 services with `Prefer: odata.maxpagesize` during downloads.
        public var pageSize: Int?
        /// Whether opening a store whose defining requests were never downloaded downloads them
        /// (the requests issued meanwhile then see the downloaded data).
        public var downloadsOnFirstOpen = true
        /// The least time, in seconds, between two "entity sets changed" events (see ``EventHub``).
        public var changeEventInterval = 0.25
        /// Threads that run reads side by side.
        public var readThreads = 4
        /// Whether an empty file at `path` (0 bytes, or an SQLite database without tables) may
        /// become the new store. By default a store is made only where no file is, so a file that
        /// is there is never silently replaced: an empty one is refused as "not a store".
        public var acceptsEmptyFile = false
        /// Whether opening may make a new store file at `path`, or must find one (``StoreFileCreation``).
        public var creation: StoreFileCreation = .openOrCreate
        /// Whether each upload first compacts the request queue (``StoreOperation/compactQueue``):
        /// fewer requests, the same result on the service. False sends the queue as it was queued.
        public var compactsUploadQueue = true
        /// The key of an encrypted store file (docs/ENCRYPTION.md): a new file is made encrypted
        /// with it, an existing one must have been. Nil for a plain file. The engine never stores
        /// it; a lost key means a lost store.
        public var key: StoreKey?
        /// How much room media streams may take: per stream and for the store's stream folder
        /// (docs/MEDIA.md).
        public var streamLimits = StreamLimits()
        /// The user the store is opened for (docs/SHARED-DEVICE.md): a store bound to another user,
        /// or bound to one while this is nil, is refused with ``ODataError/Code/otherUser``; a store
        /// bound to nobody is bound to this user by the open. Nil for a store that belongs to nobody.
        public var user: String?

        public init(path: String? = nil, serviceRoot: String? = nil) {
            self.path = path
            self.serviceRoot = serviceRoot
        }
    }

    private enum Phase {
        case opening
        case ready(RequestDispatcher)
        case failed(ODataError)
        case closed
    }

    let owner: StoreThreadMarker.Owner
    let options: Options
    /// The key of the store's file now (for reopening it): the one it was opened with, or the
    /// last ``StoreOperation/rekey(to:)`` gave; nil for a plain one.
    @_spi(Tool) public var key: StoreKey? { currentKey.withLock { $0 } }
    let currentKey: Protected<StoreKey?>
    let eventHub: EventHub
    private let readers: WorkerPool
    private let writers: WorkerPool
    /// Opening, then downloads and uploads.
    private let syncLane: WorkerPool
    private let lock = Lock()
    /// Guarded by `lock`.
    private var phase: Phase = .opening
    private var currentState: StoreState = .opening
    private var held: [any StoreJob] = []
    /// The download or upload running now, cancelled by `close()`.
    private var runningSync: RequestHandle?
    /// How many write groups committed, and how many writes they held (for tests and diagnostics).
    let writeGroupCounts = Protected<(groups: Int, writes: Int)>((0, 0))
    /// The group of local writes still taking members: its runner is queued on the write lane
    /// and has not started. Any other job sent to the write lane closes it, so that order holds.
    private var openWriteGroup: LocalWriteGroup?
    /// Cancels the transfers of opening when the store closes first.
    let openingCancellation = HTTPCancellation()
    /// The live queries' hub, made by the first watch (``watch(_:interval:_:)``).
    let liveQueries = LiveQuerySlot()

    private init(options: Options) {
        self.options = options
        currentKey = Protected(options.key)
        let identity = IdentityToken()
        owner = StoreThreadMarker.Owner(identity)
        eventHub = EventHub(changeInterval: options.changeEventInterval, owner: owner)
        readers = WorkerPool(name: "reads", threadCount: max(1, options.readThreads), owner: owner)
        writers = WorkerPool(name: "writes", threadCount: 1, owner: owner)
        syncLane = WorkerPool(name: "sync", threadCount: 1, owner: owner)
        ownerToken = identity
    }

    /// A store its caller forgot to close closes here, as ``close()`` would. This may run on one of
    /// the store's own threads (the last reference was dropped in a completion or an event
    /// handler): closing then leaves that thread to end on its own instead of waiting for it.
    deinit { close() }

    /// Keeps the identity object alive as long as the store, so no other store gets its owner value.
    private let ownerToken: IdentityToken

    /// Starts opening a store and returns at once; see the type's documentation.
    public static func open(_ options: Options) -> ODataStore {
        let store = ODataStore(options: options)
        store.eventHub.post(.stateChanged(.opening))
        store.syncLane.submit { [store] in store.runOpening() }
        return store
    }

    /// Where the store is now. Requests need not look: they are held while it opens.
    public var state: StoreState { lock.withLock { currentState } }

    /// Subscribes `handler` to the store's events, from now on; keep the subscription and call
    /// ``StoreSubscription/cancel()`` (or ``unsubscribe(_:)``) to stop.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (StoreEvent) -> Void) -> StoreSubscription {
        let id = eventHub.subscribe(handler)
        return StoreSubscription(id: id, hub: eventHub)
    }

    public func unsubscribe(_ subscription: StoreSubscription) { subscription.cancel() }

    /// Closes the store: requests still held complete with ``ODataError/Code/misuse``, a running
    /// download or upload is stopped (nothing lost), requests already queued finish, and the
    /// file is closed. Later requests complete with ``ODataError/Code/misuse``. Closing twice is
    /// harmless; closing from inside a callback finishes in the background.
    public func close() {
        let (heldJobs, running, dispatcher): ([any StoreJob], RequestHandle?, RequestDispatcher?) = lock.withLock {
            if case .closed = phase { return ([], nil, nil) }
            var dispatcher: RequestDispatcher?
            if case .ready(let ready) = phase { dispatcher = ready }
            phase = .closed
            currentState = .closed
            defer { held = [] }
            return (held, runningSync, dispatcher)
        }
        openingCancellation.cancel()
        running?.cancel()
        let closedError = Self.closedError
        for job in heldJobs where job.handle.begin() {
            eventHub.run { job.fail(closedError) }
        }
        liveQueries.shutDown()
        syncLane.shutDown()
        writers.shutDown()
        readers.shutDown()
        dispatcher?.offline?.close()
        eventHub.post(.stateChanged(.closed))
        eventHub.shutDown()
    }

    static let closedError = ODataError(.misuse, "the store is closed")

    /// Local writes queued one after the other, run by one job of the write lane in one
    /// transaction; its members change only under the store's lock.
    final class LocalWriteGroup: @unchecked Sendable {
        var jobs: [any StoreJob]
        /// Set once its runner is on the write lane's queue.
        var runnerQueued = false
        init(first: any StoreJob) { jobs = [first] }
    }

    /// The most local writes one commit takes in when a running group takes over the next one
    /// (``takeFollowingGroup()``): their completions wait for the commit.
    static let writeGroupLimit = 1_024

    /// The open store's dispatcher, when it is open and no write waits or runs (so a read issued
    /// now may run at once without overtaking one).
    func dispatcherWithoutQueuedWrites() -> RequestDispatcher? {
        lock.withLock { () -> RequestDispatcher? in
            guard case .ready(let dispatcher) = phase, writers.pendingCount == 0 else { return nil }
            return dispatcher
        }
    }

    /// The open store's dispatcher; nil while opening, after a failed opening and once closed.
    func openDispatcher() -> RequestDispatcher? {
        lock.withLock { () -> RequestDispatcher? in
            guard case .ready(let dispatcher) = phase else { return nil }
            return dispatcher
        }
    }

    /// The open store's dispatcher, once the store is open (waiting for it while it opens).
    /// - Throws: the error opening failed with, or ``ODataError/Code/misuse`` once closed.
    func dispatcherOnceOpen() throws(ODataError) -> RequestDispatcher {
        while true {
            let current = lock.withLock { phase }
            switch current {
            case .ready(let dispatcher): return dispatcher
            case .failed(let error): throw error
            case .closed: throw Self.closedError
            // The requests held while opening run before the phase becomes `ready`: wait again.
            case .opening: try waitUntilOpen()
            }
        }
    }

    // MARK: - Jobs

    /// Holds `job` while the store opens, runs it when it is open, fails it when it cannot run.
    /// With `runsHereWhenIdle` (a caller that only waits for it), a job of the sync lane runs on
    /// the calling thread when that lane is idle (``WorkerPool/runHereIfIdle(_:)``).
    func submit(_ job: any StoreJob, runsHereWhenIdle: Bool = false) {
        enum Next { case hold, run(RequestDispatcher), fail(ODataError) }
        let next: Next = lock.withLock {
            switch phase {
            case .opening:
                held.append(job)
                return .hold
            case .ready(let dispatcher): return .run(dispatcher)
            case .failed(let error): return .fail(error)
            case .closed: return .fail(Self.closedError)
            }
        }
        switch next {
        case .hold: break
        case .run(let dispatcher): dispatch(job, on: dispatcher, runsHereWhenIdle: runsHereWhenIdle)
        case .fail(let error): if job.handle.begin() { eventHub.run { job.fail(error) } }
        }
    }

    private func dispatch(_ job: any StoreJob, on dispatcher: RequestDispatcher, runsHereWhenIdle: Bool) {
        let pool: WorkerPool
        let lane = job.lane(on: dispatcher)
        if runsHereWhenIdle, lane == .sync, syncLane.runHereIfIdle({
            guard job.handle.begin() else { return }
            job.runAndComplete(on: dispatcher)
            job.handle.finish()
        }) {
            return
        }
        switch lane {
        case .read:
            // A read issued behind writes still queued waits for them: it sees what was issued before it.
            pool = writers.pendingCount > 0 ? writers : readers
        case .write: pool = writers
        case .localWrite:
            dispatchLocalWrite(job, on: dispatcher)
            return
        case .sync: pool = syncLane
        }
        if pool === writers { lock.withLock { openWriteGroup = nil } }
        let accepted = pool.submit {
            guard job.handle.begin() else { return }
            job.runAndComplete(on: dispatcher)
            job.handle.finish()
        }
        if !accepted, job.handle.begin() { eventHub.run { job.fail(Self.closedError) } }
    }

    /// Adds a local write to the open group, or starts a group with its runner on the write lane.
    private func dispatchLocalWrite(_ job: any StoreJob, on dispatcher: RequestDispatcher) {
        let newGroup: LocalWriteGroup? = lock.withLock {
            if let group = openWriteGroup {
                group.jobs.append(job)
                return nil
            }
            let group = LocalWriteGroup(first: job)
            openWriteGroup = group
            return group
        }
        guard let newGroup else { return }
        let accepted = writers.submit { [self] in runWriteGroup(newGroup, on: dispatcher) }
        if accepted { lock.withLock { newGroup.runnerQueued = true } }
        if !accepted {
            let jobs = lock.withLock { () -> [any StoreJob] in
                if openWriteGroup === newGroup { openWriteGroup = nil }
                return newGroup.jobs
            }
            for member in jobs where member.handle.begin() { eventHub.run { member.fail(Self.closedError) } }
        }
    }

    /// Runs a group of local writes in one transaction of the store file, then completes each,
    /// in order, once the commit made them durable: one fsync for the group instead of one per
    /// write. Each write runs in a savepoint, so one that fails is undone alone.
    private func runWriteGroup(_ group: LocalWriteGroup, on dispatcher: RequestDispatcher) {
        let jobs = lock.withLock { () -> [any StoreJob] in
            if openWriteGroup === group { openWriteGroup = nil }
            return group.jobs
        }
        runLocalWrites(jobs.filter { $0.handle.begin() }, on: dispatcher, takingFollowers: true)
    }

    /// The writes of the group that would run right after the running one, taken over (its runner
    /// then finds it empty); nil unless that runner is the only job queued on the write lane, so
    /// nothing issued before those writes is overtaken. One commit then covers both groups.
    private func takeFollowingGroup() -> [any StoreJob]? {
        lock.withLock { () -> [(any StoreJob)]? in
            guard let next = openWriteGroup, next.runnerQueued, writers.queuedCount == 1 else { return nil }
            openWriteGroup = nil
            defer { next.jobs = [] }
            return next.jobs
        }
    }

    /// Runs local writes that have begun, in order, in one transaction (see ``runWriteGroup(_:on:)``);
    /// with `takingFollowers`, the writes queued meanwhile as the next group join it, up to
    /// ``writeGroupLimit``.
    private func runLocalWrites(_ first: [any StoreJob], on dispatcher: RequestDispatcher, takingFollowers: Bool = false) {
        var started = first
        guard started.count > 1, let file = dispatcher.offline?.file else {
            for job in started {
                job.runAndComplete(on: dispatcher)
                job.handle.finish()
            }
            return
        }
        // How many of `started` ran inside the transaction (those after a failure did not).
        var ran = 0
        var groupFailure: ODataError?
        do throws(ODataError) {
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    var index = 0
                    while index < started.count {
                        started[index].run(on: dispatcher)
                        ran += 1
                        index += 1
                        if index == started.count, takingFollowers, started.count < Self.writeGroupLimit,
                           let followers = takeFollowingGroup() {
                            started += followers.filter { $0.handle.begin() }
                        }
                    }
                }
            }
        } catch {
            groupFailure = error
        }
        if groupFailure == nil { writeGroupCounts.withLock { $0 = ($0.groups + 1, $0.writes + started.count) } }
        for (index, job) in started.enumerated() {
            if index < ran {
                job.complete(groupFailure: groupFailure)
            } else {
                job.fail(groupFailure ?? ODataError(.internalError, "a grouped write did not run"))
            }
            job.handle.finish()
        }
    }

    /// Runs a download or an upload as the store's one running sync operation, with its states.
    func runningSyncOperation<T>(_ handle: RequestHandle, state: StoreState,
                                 _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        let started = lock.withLock { () -> Bool in
            // Held downloads and uploads run while the phase is still `opening` (see `becomeReady`).
            switch phase {
            case .ready, .opening: break
            case .failed, .closed: return false
            }
            runningSync = handle
            currentState = state
            return true
        }
        guard started else { throw Self.closedError }
        eventHub.post(.stateChanged(state))
        defer {
            let reopened = lock.withLock { () -> Bool in
                runningSync = nil
                switch phase {
                case .ready, .opening:
                    currentState = .open
                    return true
                case .failed, .closed:
                    return false
                }
            }
            if reopened { eventHub.post(.stateChanged(.open)) }
        }
        return try body()
    }

    /// Puts `dispatcher` (the same file and service under a migrated model) in place of the open
    /// one, for the requests that start from now on; those running finish on the old one.
    func replaceDispatcher(_ dispatcher: RequestDispatcher) {
        lock.withLock {
            if case .ready = phase { phase = .ready(dispatcher) }
        }
        // Live queries follow: each is planned again under the new model, and runs.
        liveQueries.current?.replanAll()
    }

    // MARK: - Opening

    private func runOpening() {
        let outcome: Result<RequestDispatcher, ODataError>
        do throws(ODataError) {
            outcome = .success(try StoreOpening(store: self).run())
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let dispatcher): becomeReady(dispatcher)
        case .failure(let error): failOpening(error)
        }
    }

    /// Sets the state of opening (`downloading` during the first download).
    func setOpeningState(_ state: StoreState) {
        let changed = lock.withLock { () -> Bool in
            guard case .opening = phase else { return false }
            currentState = state
            return true
        }
        if changed { eventHub.post(.stateChanged(state)) }
    }

    /// Runs the held requests in the order issued, then lets requests run as they come.
    private func becomeReady(_ dispatcher: RequestDispatcher) {
        // Open from now on, though requests still arriving are held until those before them ran.
        let stillOpening = lock.withLock { () -> Bool in
            guard case .opening = phase else { return false }
            currentState = .open
            return true
        }
        if stillOpening { eventHub.post(.stateChanged(.open)) }
        while true {
            let batch: [any StoreJob]? = lock.withLock {
                guard case .opening = phase else { return nil }
                if held.isEmpty {
                    phase = .ready(dispatcher)
                    return []
                }
                defer { held = [] }
                return held
            }
            guard let batch else {
                // Closed while opening: the opened file is not needed any more.
                dispatcher.offline?.close()
                return
            }
            if batch.isEmpty { return }
            // Held requests run here, one after the other, so they keep their order exactly; local
            // writes held one behind the other commit together, as on the write lane. (One by one,
            // each would wait for its own commit, while requests issued meanwhile pile up here.)
            var writes: [any StoreJob] = []
            for job in batch where job.handle.begin() {
                if job.lane(on: dispatcher) == .localWrite {
                    writes.append(job)
                    continue
                }
                runLocalWrites(writes, on: dispatcher)
                writes = []
                job.runAndComplete(on: dispatcher)
                job.handle.finish()
            }
            runLocalWrites(writes, on: dispatcher)
        }
    }

    private func failOpening(_ error: ODataError) {
        let heldJobs: [any StoreJob]? = lock.withLock {
            guard case .opening = phase else { return nil }
            phase = .failed(error)
            currentState = .closed
            defer { held = [] }
            return held
        }
        guard let heldJobs else { return }
        eventHub.post(.openFailed(error))
        eventHub.post(.stateChanged(.closed))
        for job in heldJobs where job.handle.begin() { job.fail(error) }
    }
}

/// An object whose only job is to have an identity for the lifetime of its store.
private final class IdentityToken: Sendable {}

/// A subscription to a store's events; ``cancel()`` ends it.
public final class StoreSubscription: Sendable {
    private let id: Int
    private let hub: EventHub

    init(id: Int, hub: EventHub) {
        self.id = id
        self.hub = hub
    }

    /// Stops the events; one being delivered may still arrive. Harmless when called twice.
    public func cancel() { hub.unsubscribe(id) }
}
