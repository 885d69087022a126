/// Resolutions of reads (GET) and creates (POST) by URL, kept across requests: an app repeats its
/// reads (a list shown again, the same entity read), a burst of creates names the same collection,
/// and parsing and binding a URL again costs more than SQLite's part of a small read or an insert.
/// Only successes are kept, each with its method and the parser limits it was made under, so a
/// kept resolution is the one a fresh resolution would give (the model and dialect are fixed for a
/// store). Updates and deletes name a different key each time and are not kept; nor are URLs
/// longer than ``ReadPlanCache/maximumURLLength``, so the cache's memory stays small.
///
/// Shared by the store's threads, behind one lock held for a dictionary lookup.
final class RequestResolutionCache: Sendable {
    /// Entries per generation of the ``RecentCache``.
    static let capacity = 256
    private struct Key: Hashable {
        var url: String
        var method: RequestMethod
        var limits: ODataURLParser.Limits
    }
    private let kept = Protected(RecentCache<Key, ResolvedRequest>(capacity: RequestResolutionCache.capacity))

    /// Whether resolutions of `method` are kept: reads and creates.
    static func keeps(_ method: RequestMethod) -> Bool { method == .get || method == .post }

    func resolution(of url: String, method: RequestMethod, limits: ODataURLParser.Limits,
                    _ resolve: () -> ResolvedRequest) -> ResolvedRequest {
        guard url.utf8.count <= ReadPlanCache.maximumURLLength else { return resolve() }
        let key = Key(url: url, method: method, limits: limits)
        if let found = kept.withLock({ $0.value(for: key) }) { return found }
        let made = resolve()
        guard case .success = made.binding else { return made }
        kept.withLock { $0.insert(made, for: key) }
        return made
    }
}
