/// A bounded map that keeps what was used recently, for the caches of the read path (a request's
/// resolution, a read's SQL). Two generations of at most `capacity` entries: a hit in the older
/// one moves the entry to the newer, and when the newer is full it becomes the older, so what went
/// unused for a whole generation is dropped. Every use is one or two dictionary operations, with no
/// use stamps to scan as a strict least-recently-used list would.
///
/// A value type without a lock: its owner guards it (``Protected``) or keeps it to one thread.
struct RecentCache<Key: Hashable, Value> {
    /// Entries per generation: the cache holds at most twice this many.
    let capacity: Int
    private var newer: [Key: Value] = [:]
    private var older: [Key: Value] = [:]

    init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// The value kept for `key`, now counted as recently used.
    mutating func value(for key: Key) -> Value? {
        if let found = newer[key] { return found }
        guard let found = older.removeValue(forKey: key) else { return nil }
        insert(found, for: key)
        return found
    }

    mutating func insert(_ value: Value, for key: Key) {
        if newer.count >= capacity {
            older = newer
            newer = [:]
        }
        newer[key] = value
    }

    mutating func removeAll() {
        newer = [:]
        older = [:]
    }

    /// How many entries are kept (both generations).
    var count: Int { newer.count + older.count }
}
