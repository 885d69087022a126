/// Counts URL parses and binds, for the tests that prove a request is understood once (issue 22:
/// one read is one parse and one bind). A parse is the URL parser's or the path classifier's
/// split of a path. Off unless a test watches, and then only for what it watches, so tests
/// running side by side do not count each other's work: parses of URLs that contain a marker,
/// binds against one model instance (any object here, as Support sits below the model).
enum ParseBindCounter {
    private struct Watched {
        var markers: [String: Int] = [:]
        var models: [ObjectIdentifier: Int] = [:]
        var isEmpty: Bool { markers.isEmpty && models.isEmpty }
    }
    private static let watched = Protected(Watched())

    /// Starts counting parses of URLs containing `marker`.
    static func watchParses(containing marker: String) { watched.withLock { $0.markers[marker] = 0 } }
    /// Starts counting binds against `model`.
    static func watchBinds(against model: AnyObject) { watched.withLock { $0.models[ObjectIdentifier(model)] = 0 } }

    /// Parses of URLs containing `marker` since watching began.
    static func parses(containing marker: String) -> Int { watched.withLock { $0.markers[marker] ?? 0 } }
    /// Binds against `model` since watching began.
    static func binds(against model: AnyObject) -> Int { watched.withLock { $0.models[ObjectIdentifier(model)] ?? 0 } }

    /// Stops counting for `marker` and `model`.
    static func stopWatching(marker: String, model: AnyObject) {
        watched.withLock {
            $0.markers[marker] = nil
            $0.models[ObjectIdentifier(model)] = nil
        }
    }

    static func noteParse(of url: String) {
        watched.withLock { state in
            guard !state.markers.isEmpty else { return }
            for marker in state.markers.keys where url.contains(marker) { state.markers[marker, default: 0] += 1 }
        }
    }

    static func noteBind(against model: AnyObject) {
        watched.withLock { state in
            guard !state.models.isEmpty else { return }
            let id = ObjectIdentifier(model)
            if let count = state.models[id] { state.models[id] = count + 1 }
        }
    }
}
