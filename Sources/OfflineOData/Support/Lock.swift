#if canImport(Glibc)
import Glibc
#endif

/// A plain mutual-exclusion lock around a critical section.
///
/// Used instead of `Synchronization.Mutex` where the guarded state is a non-Sendable reference
/// (an SQLite connection) and the section returns arbitrary values: `Mutex.withLock` demands
/// `sending` values, which such sections cannot give. Not recursive unless made so: callers that
/// may re-enter (callbacks into their own store) check for it before locking.
final class Lock: @unchecked Sendable {
    /// Internal so that a condition variable can wait on it (``ConditionLock``).
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// - Parameter recursive: the thread holding the lock may take it again (and must release it
    ///   as often); for a resource whose users call one another while holding it.
    init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        if recursive {
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        } else {
            pthread_mutex_init(mutex, nil)
        }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

extension Lock {
    /// Runs `body` under the lock if it is free now (or held by this thread, for a recursive
    /// lock); nil without running it when another thread holds it. For work that may be skipped
    /// and done later (a poll), never for work that must happen.
    func tryWithLock<T>(_ body: () -> T) -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
