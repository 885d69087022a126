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
    /// Guarded by `state`: the thread running a job of this pool in its stead (``runHereIfIdle(_:)``).
    private var borrower: pthread_t?
    /// Whether the pool has one thread: a serial lane, which a caller may borrow.
    private let isSerial: Bool

    /// Starts `threadCount` threads (at least one).
    init(name: String, threadCount: Int, owner: StoreThreadMarker.Owner) {
        self.name = name
        self.owner = owner
        isSerial = threadCount <= 1
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

    /// Runs `job` on the calling thread, now, when this serial pool has nothing queued or running,
    /// and holds the pool meanwhile: what is submitted then waits for it as for a job of the pool's
    /// own thread, and the calling thread counts as the pool's (``StoreThreadMarker``). False,
    /// without running `job`, when the pool is busy, stopping or not serial.
    ///
    /// For a caller that would only wait for the job: it saves the two hand-overs between threads
    /// (to the pool's thread and back) that cost as much as a short job's own work (a conditional
    /// request on a local network).
    func runHereIfIdle(_ job: () -> Void) -> Bool {
        let taken = state.withLock { () -> Bool in
            guard isSerial, !isStopping, head == jobs.count, running == 0 else { return false }
            running += 1
            borrower = pthread_self()
            return true
        }
        guard taken else { return false }
        StoreThreadMarker.marking(owner, job)
        state.withLock {
            running -= 1
            borrower = nil
            // The pool's thread is woken only when it has something to do: a job submitted
            // meanwhile, or the end. Waking it for nothing costs as much as the hand-over saved.
            if head < jobs.count || isStopping { state.broadcast() }
        }
        return true
    }

    /// Jobs queued or running.
    var pendingCount: Int { state.withLock { jobs.count - head + running } }

    /// Jobs queued and not yet started.
    var queuedCount: Int { state.withLock { jobs.count - head } }

    /// Lets the queued jobs finish, then ends the threads; waits for them unless called from one
    /// of them (a callback closing its own store), which then end on their own.
    func shutDown() {
        let current = pthread_self()
        let (toJoin, calledByBorrower): ([pthread_t], Bool) = state.withLock {
            isStopping = true
            state.broadcast()
            defer { threads.removeAll() }
            return (threads, borrower.map { pthread_equal($0, current) != 0 } ?? false)
        }
        for thread in toJoin {
            // The pool's thread waits for a borrowed job: its borrower (closing from inside it) cannot wait for it.
            if pthread_equal(thread, current) != 0 || calledByBorrower {
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
            // Nothing starts while a caller runs a job in the thread's stead (stopping or not).
            while (head == jobs.count && !isStopping) || borrower != nil { state.wait() }
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
