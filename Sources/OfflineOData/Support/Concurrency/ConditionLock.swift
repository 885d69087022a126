#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable: the waiting the store's worker threads and blocking calls
/// need (`Lock` alone cannot wait for a state change).
final class ConditionLock: @unchecked Sendable {
    private let lock = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Timed waits measure against the monotonic clock, so a change of the wall clock does not
        // stretch or cut them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try lock.withLock(body)
    }

    /// Waits, inside `withLock`, until signalled (callers re-check their condition in a loop).
    func wait() { pthread_cond_wait(condition, lock.mutex) }

    /// Waits, inside `withLock`, until signalled or until `deadline` (monotonic seconds) passed.
    func wait(until deadline: Double) {
        var time = timespec()
        time.tv_sec = Int(deadline)
        time.tv_nsec = Int((deadline - Double(Int(deadline))) * 1_000_000_000)
        pthread_cond_timedwait(condition, lock.mutex, &time)
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}

/// Seconds on the monotonic clock, for deadlines and intervals.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
}
