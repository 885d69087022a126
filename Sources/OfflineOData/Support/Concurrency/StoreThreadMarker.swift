#if canImport(Glibc)
import Glibc
#endif

/// Marks the threads a store owns, so that a call from inside one of the store's own callbacks
/// can be told apart from a call from the application's threads.
///
/// A completion or an event handler runs on a store thread. If it made a *blocking* call into the
/// same store, that call could wait for the very thread it runs on: a deadlock. Blocking calls
/// ask ``isCurrentThreadOwned(by:)`` first and answer ``ODataError/Code/busy`` instead.
/// Non-blocking calls (submitting another request) are always fine.
enum StoreThreadMarker {
    /// Who owns a thread: an identity, compared, never dereferenced.
    struct Owner: Sendable, Equatable {
        let value: UInt
        init(_ object: AnyObject) { value = UInt(bitPattern: ObjectIdentifier(object).hashValue) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func mark(_ owner: Owner) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: owner.value))
    }

    /// Runs `body` with the calling thread marked as `owner`'s, then marks it as it was (a thread
    /// of the application's, or of another store's, that runs a job of this store in its lane's stead).
    static func marking(_ owner: Owner, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        mark(owner)
        defer { pthread_setspecific(key, previous) }
        body()
    }

    static func isCurrentThreadOwned(by owner: Owner) -> Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        return UInt(bitPattern: raw) == owner.value
    }
}
