#if canImport(Glibc)
import Glibc
#endif

/// Runs a store's live queries (``ODataStore/watch(_:interval:_:)``) on a thread of its own: a
/// watched read runs again when a commit changed a table it reads, and its answer is delivered
/// when it differs from the last one delivered.
///
/// - **Which commits.** The store file's ``TableChangeTracker`` publishes the tables each commit of
///   its write connection changed, after the commit; watchers are indexed by table, so a commit
///   marks only the watchers of the tables it changed (a write with 1,000 unrelated watchers looks
///   up its tables, never the watchers). Commits of other connections are found by polling
///   `PRAGMA data_version` (``StoreFile/sawOtherCommits()``) every ``otherCommitPollInterval``
///   while watchers exist; they mark every watcher, as their tables are unknown.
/// - **Coalescing.** A marked watcher runs at once if its last run started at least its interval
///   ago, else when the interval is over; commits meanwhile join that one run. A commit after a run
///   started marks the watcher again, so the last run always starts after the last commit.
/// - **Only committed states.** Runs read on a read connection, which sees committed transactions
///   only: a download's entities appear when its defining request's transaction commits, whole.
/// - **Deliveries** run on the hub's thread, one at a time. ``cancel(_:)`` from another thread
///   waits for a delivery in progress to the same watcher, so none comes after it returns.
final class LiveQueryHub: @unchecked Sendable {
    /// How often commits of other connections are looked for, in seconds.
    static let otherCommitPollInterval = 0.05

    /// What a watched read runs and which tables it depends on, under the store's model now.
    struct Plan: Sendable {
        var dependencies: LiveDependencies
        var read: @Sendable () throws(ODataError) -> StoreResponse
    }

    /// One watched read.
    final class Watcher: @unchecked Sendable {
        let id: Int
        let interval: Double
        /// The read and its tables again, for the store's model now (``replanAll()``): an error
        /// when the request no longer fits the model (the watch then delivers that error).
        let replan: @Sendable () -> Result<Plan, ODataError>?
        let deliver: @Sendable (Result<StoreResponse, ODataError>) -> Void
        let onEnd: @Sendable () -> Void
        // Guarded by the hub's `state`.
        var plan: Plan
        var lastRunStart = -Double.infinity
        var isCancelled = false
        var isDelivering = false
        var runs = 0
        var deliveries = 0
        /// Touched only on the hub's thread.
        var lastDelivered: Result<StoreResponse, ODataError>?

        init(id: Int, plan: Plan, interval: Double,
             replan: @escaping @Sendable () -> Result<Plan, ODataError>?,
             deliver: @escaping @Sendable (Result<StoreResponse, ODataError>) -> Void,
             onEnd: @escaping @Sendable () -> Void) {
            self.id = id
            self.plan = plan
            self.interval = interval
            self.replan = replan
            self.deliver = deliver
            self.onEnd = onEnd
        }
    }

    private let file: StoreFile
    private let state = ConditionLock()
    // Guarded by `state`.
    private var watchers: [Int: Watcher] = [:]
    private var watchersByTable: [String: Set<Int>] = [:]
    private var watchersOfEveryCommit: Set<Int> = []
    private var dirty: Set<Int> = []
    /// Watchers taken from `dirty` whose run has not finished.
    private var inProgress: Set<Int> = []
    private var nextID = 1
    private var isStopping = false
    private var thread: pthread_t?
    /// Commits published by the tracker that marked at least one watcher, and those that marked none.
    private var relevantCommits = 0
    private var ignoredCommits = 0
    /// Holds taken by model migrations (``holdRuns()``): no run starts while one is held.
    private var holds = 0
    /// Counts the holds ever taken: a run that saw it change read under a model on its way out,
    /// and its answer is dropped and read again.
    private var holdGeneration = 0

    init(file: StoreFile) {
        self.file = file
        file.setChangeListener { [weak self] tables in self?.tablesChanged(tables) }
        file.beginWatchingOtherCommits()
        thread = spawnThread { [self] in runLoop() }
    }

    /// Adds a watcher; its first run (the current answer) comes at once. Nil once the hub stopped.
    func add(plan: Plan, interval: Double,
             replan: @escaping @Sendable () -> Result<Plan, ODataError>?,
             deliver: @escaping @Sendable (Result<StoreResponse, ODataError>) -> Void,
             onEnd: @escaping @Sendable () -> Void) -> Watcher? {
        state.withLock { () -> Watcher? in
            guard !isStopping else { return nil }
            defer { nextID += 1 }
            let watcher = Watcher(id: nextID, plan: plan, interval: max(0, interval), replan: replan, deliver: deliver, onEnd: onEnd)
            watchers[watcher.id] = watcher
            index(watcher)
            dirty.insert(watcher.id)
            state.broadcast()
            return watcher
        }
    }

    /// Under `state`: files `watcher` under the tables it depends on.
    private func index(_ watcher: Watcher) {
        if watcher.plan.dependencies.dependsOnEveryCommit { watchersOfEveryCommit.insert(watcher.id) }
        for table in watcher.plan.dependencies.tables { watchersByTable[table, default: []].insert(watcher.id) }
    }

    /// Under `state`: the reverse of ``index(_:)``.
    private func unindex(_ watcher: Watcher) {
        watchersOfEveryCommit.remove(watcher.id)
        for table in watcher.plan.dependencies.tables {
            watchersByTable[table]?.remove(watcher.id)
            if watchersByTable[table]?.isEmpty == true { watchersByTable[table] = nil }
        }
    }

    /// Plans every watcher again for the store's model now, and runs each: the store adopted a
    /// new model (its tables and columns may differ), and a watch follows the store it watches,
    /// not the model it started under. A request the new model refuses delivers that error.
    func replanAll() {
        let current = state.withLock { Array(watchers.values) }
        var plans: [(Watcher, Result<Plan, ODataError>)] = []
        for watcher in current {
            if let plan = watcher.replan() { plans.append((watcher, plan)) }
        }
        state.withLock {
            for (watcher, plan) in plans where !watcher.isCancelled {
                unindex(watcher)
                switch plan {
                case .success(let replanned): watcher.plan = replanned
                case .failure(let error):
                    watcher.plan.read = { () throws(ODataError) -> StoreResponse in throw error }
                }
                index(watcher)
                dirty.insert(watcher.id)
            }
            state.broadcast()
        }
    }

    /// Holds every run until ``releaseRuns()``: a model migration is about to commit, and a read
    /// planned under the old model would fail on the new tables (`no such column`) before
    /// ``replanAll()`` plans it again. A run already going when the hold is taken has its answer
    /// dropped and runs again after the release, so a watch never delivers that passing error.
    func holdRuns() {
        state.withLock {
            holds += 1
            holdGeneration += 1
        }
    }

    /// Ends a hold of ``holdRuns()``; the watchers marked meanwhile run.
    func releaseRuns() {
        state.withLock {
            holds = max(0, holds - 1)
            state.broadcast()
        }
    }

    /// The tables `watcher` depends on now.
    func dependencies(of watcher: Watcher) -> LiveDependencies { state.withLock { watcher.plan.dependencies } }

    /// Stops `watcher`: no delivery starts after this returns, and one in progress on another
    /// thread is waited for (from the watcher's own delivery, it is not: that one is the caller).
    /// Ends its sequence. Harmless twice.
    func cancel(_ watcher: Watcher) {
        let ended = state.withLock { () -> Bool in
            guard !watcher.isCancelled else { return false }
            watcher.isCancelled = true
            remove(watcher)
            let onHubThread = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            while watcher.isDelivering && !onHubThread { state.wait() }
            return true
        }
        if ended { watcher.onEnd() }
    }

    /// Under `state`.
    private func remove(_ watcher: Watcher) {
        watchers[watcher.id] = nil
        dirty.remove(watcher.id)
        unindex(watcher)
    }

    /// How many watchers there are.
    var watcherCount: Int { state.withLock { watchers.count } }

    /// How often `watcher` ran its read, and how many answers it delivered.
    func counts(of watcher: Watcher) -> (runs: Int, deliveries: Int) {
        state.withLock { (watcher.runs, watcher.deliveries) }
    }

    /// Published commits that marked a watcher, and those that marked none (for tests).
    var commitCounts: (relevant: Int, ignored: Int) { state.withLock { (relevantCommits, ignoredCommits) } }

    /// Whether no watcher waits for a run (every change seen so far has been read and, where the
    /// answer changed, delivered). For tests and tools that wait for a quiescent point.
    var isIdle: Bool { state.withLock { dirty.isEmpty && inProgress.isEmpty } }

    /// Waits (up to `seconds`) until the hub is idle (``isIdle``); false when the time passed first.
    /// Woken at the end of each run, so it returns as soon as the last one ends.
    func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return state.withLock {
            while !(dirty.isEmpty && inProgress.isEmpty) && monotonicSeconds() < deadline { state.wait(until: deadline) }
            return dirty.isEmpty && inProgress.isEmpty
        }
    }

    /// Stops the thread and ends every watcher (their sequences finish). Waits for the thread
    /// unless called from it (a delivery that closed its store), which then ends on its own.
    func shutDown() {
        file.setChangeListener(nil)
        let (ending, running): ([Watcher], pthread_t?) = state.withLock {
            isStopping = true
            state.broadcast()
            let ending = Array(watchers.values)
            for watcher in ending {
                watcher.isCancelled = true
                remove(watcher)
            }
            defer { thread = nil }
            return (ending, thread)
        }
        if let running {
            if pthread_equal(running, pthread_self()) != 0 { pthread_detach(running) } else { pthread_join(running, nil) }
        }
        for watcher in ending { watcher.onEnd() }
    }

    // MARK: - Changes

    /// Marks the watchers that read any of `tables` (a commit of the write connection changed them).
    private func tablesChanged(_ tables: Set<String>) {
        state.withLock {
            let before = dirty.count
            var marked = !watchersOfEveryCommit.isEmpty
            dirty.formUnion(watchersOfEveryCommit)
            for table in tables {
                guard let ids = watchersByTable[table] else { continue }
                marked = true
                dirty.formUnion(ids)
            }
            if marked { relevantCommits += 1 } else { ignoredCommits += 1 }
            if dirty.count != before { state.broadcast() }
        }
    }

    // MARK: - The thread

    private func runLoop() {
        var nextPoll = monotonicSeconds()
        while true {
            let next: (due: [Watcher], pollNow: Bool)? = state.withLock { () -> (due: [Watcher], pollNow: Bool)? in
                while true {
                    if isStopping { return nil }
                    let now = monotonicSeconds()
                    var due: [Watcher] = []
                    var earliest = Double.infinity
                    for id in dirty where holds == 0 {
                        guard let watcher = watchers[id] else { continue }
                        let start = watcher.lastRunStart + watcher.interval
                        if start <= now { due.append(watcher) } else { earliest = min(earliest, start) }
                    }
                    let pollNow = !watchers.isEmpty && now >= nextPoll
                    if !due.isEmpty || pollNow {
                        for watcher in due {
                            dirty.remove(watcher.id)
                            inProgress.insert(watcher.id)
                            watcher.lastRunStart = now
                        }
                        return (due, pollNow)
                    }
                    // Held (a migration is going), only the poll wakes the loop until the release.
                    let deadline = watchers.isEmpty ? earliest : min(earliest, nextPoll)
                    if deadline == .infinity { state.wait() } else { state.wait(until: deadline) }
                }
            }
            guard let (due, pollNow) = next else { return }
            if pollNow {
                nextPoll = monotonicSeconds() + Self.otherCommitPollInterval
                if file.sawOtherCommits() == true {
                    state.withLock {
                        dirty.formUnion(watchers.keys)
                        state.broadcast()
                    }
                }
            }
            for watcher in due { run(watcher) }
        }
    }

    /// Reads `watcher`'s request and delivers the answer if it is not the last one delivered.
    private func run(_ watcher: Watcher) {
        let (read, generation) = state.withLock { (watcher.plan.read, holdGeneration) }
        let answer: Result<StoreResponse, ODataError>
        do throws(ODataError) {
            answer = .success(try read())
        } catch {
            answer = .failure(error)
        }
        let delivers = state.withLock { () -> Bool in
            watcher.runs += 1
            if generation != holdGeneration && !watcher.isCancelled {
                // A migration began while it read: the answer may be the old plan's on new tables.
                inProgress.remove(watcher.id)
                dirty.insert(watcher.id)
                state.broadcast()
                return false
            }
            guard !watcher.isCancelled, answer != watcher.lastDelivered else {
                inProgress.remove(watcher.id)
                state.broadcast()
                return false
            }
            watcher.isDelivering = true
            watcher.deliveries += 1
            return true
        }
        guard delivers else { return }
        watcher.lastDelivered = answer
        watcher.deliver(answer)
        state.withLock {
            watcher.isDelivering = false
            inProgress.remove(watcher.id)
            state.broadcast()
        }
    }
}
