#if canImport(Glibc)
import Glibc
#endif

/// Threads of the store's own that run submitted jobs first in, first out.
///
/// The store runs its blocking work (SQLite, libcurl) on threads it owns rather than on Swift's
/// cooperative pool, whose few threads must never block. A pool of one thread is a serial lane
/// (local writes; downloads and uploads); a pool of several runs reads side by side.
///
/// Each thread is marked with its owner (``StoreThreadMarker``), so a blocking call made from a
/// callback the store runs can be recognised and refused instead of waiting for itself.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    let name: String
    private let owner: StoreThreadMarker.Owner
    private let state = ConditionLock()
    /// Guarded by `state`: jobs not yet started, oldest at `head`.
    private var jobs: [Job?] = []
    private var head = 0
    private var running = 0
    private var isStopping = false
    private var threads: [pthread_t] = []

    /// Starts `threadCount` threads (at least one).
    init(name: String, threadCount: Int, owner: StoreThreadMarker.Owner) {
        self.name = name
        self.owner = owner
        for _ in 0..<max(1, threadCount) {
            if let thread = spawnThread({ [self] in runLoop() }) { threads.append(thread) }
        }
    }

    /// Queues `job`; false when the pool is stopping and the job will not run.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        state.withLock { () -> Bool in
            guard !isStopping else { return false }
            jobs.append(job)
            state.broadcast()
            return true
        }
    }

    /// Jobs queued or running.
    var pendingCount: Int { state.withLock { jobs.count - head + running } }

    /// Jobs queued and not yet started.
    var queuedCount: Int { state.withLock { jobs.count - head } }

    /// Lets the queued jobs finish, then ends the threads; waits for them unless called from one
    /// of them (a callback closing its own store), which then end on their own.
    func shutDown() {
        let toJoin: [pthread_t] = state.withLock {
            isStopping = true
            state.broadcast()
            defer { threads.removeAll() }
            return threads
        }
        let current = pthread_self()
        for thread in toJoin {
            if pthread_equal(thread, current) != 0 {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
    }

    private func runLoop() {
        StoreThreadMarker.mark(owner)
        while let job = next() {
            job()
            state.withLock { running -= 1 }
        }
    }

    /// The next job, or nil once the pool stops and nothing is queued.
    private func next() -> Job? {
        state.withLock { () -> Job? in
            while head == jobs.count && !isStopping { state.wait() }
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 64 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            return job
        }
    }
}
