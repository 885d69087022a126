import Synchronization

/// Counts URL parses and binds, for the tests that prove a request is understood once (issue 22:
/// one read is one parse and one bind). A parse is the URL parser's (of a URL, or of a path
/// alone). Off unless a test watches, and then only for what it watches, so tests
/// running side by side do not count each other's work: parses of URLs that contain a marker,
/// binds against one model instance (any object here, as Support sits below the model).
///
/// Unwatched, a note costs one relaxed atomic load: reads on many threads share no lock here.
/// This is the one `Atomic` beside the engine's ``Protected``: every read notes a parse and a bind,
/// and a note through `Protected`'s mutex measured about 100 ns against about 12 ns through the
/// atomic load on one thread, 190 against 13 with two threads noting at once (issue 32, a
/// micro-measure on a busy two-core machine). The thread sanitizer sees atomics (unlike the
/// futex under `Mutex`), so `make tsan` still checks this one.
enum ParseBindCounter {
    private struct Watched {
        var markers: [String: Int] = [:]
        var models: [ObjectIdentifier: Int] = [:]
    }
    private static let watched = Protected(Watched())
    /// How many watches are on; the notes look at `watched` only when some are.
    private static let watches = Atomic<Int>(0)

    /// Starts counting parses of URLs containing `marker` and binds against `model`.
    static func watch(marker: String, model: AnyObject) {
        watched.withLock {
            $0.markers[marker] = 0
            $0.models[ObjectIdentifier(model)] = 0
        }
        watches.add(1, ordering: .sequentiallyConsistent)
    }

    /// Stops counting for `marker` and `model`.
    static func stopWatching(marker: String, model: AnyObject) {
        watches.subtract(1, ordering: .sequentiallyConsistent)
        watched.withLock {
            $0.markers[marker] = nil
            $0.models[ObjectIdentifier(model)] = nil
        }
    }

    /// Parses of URLs containing `marker` since watching began.
    static func parses(containing marker: String) -> Int { watched.withLock { $0.markers[marker] ?? 0 } }
    /// Binds against `model` since watching began.
    static func binds(against model: AnyObject) -> Int { watched.withLock { $0.models[ObjectIdentifier(model)] ?? 0 } }

    static func noteParse(of url: String) {
        guard watches.load(ordering: .relaxed) > 0 else { return }
        watched.withLock { state in
            for marker in state.markers.keys where url.contains(marker) { state.markers[marker, default: 0] += 1 }
        }
    }

    static func noteBind(against model: AnyObject) {
        guard watches.load(ordering: .relaxed) > 0 else { return }
        let id = ObjectIdentifier(model)
        watched.withLock { state in
            if let count = state.models[id] { state.models[id] = count + 1 }
        }
    }
}
