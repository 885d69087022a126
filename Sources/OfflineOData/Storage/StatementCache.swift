/// Prepared statements kept per SQL text, least recently used first out, so repeated reads (and
/// the few statements of a local write) skip SQLite's parse and plan. Tied to one connection:
/// using another one empties it.
///
/// A use hashes the SQL text once, and only a sample of it (see ``Key``): the entry is a reference
/// whose use stamp and in-use mark are updated in place (a local write runs five cached
/// statements, each of a few hundred bytes).
final class StatementCache {
    /// An SQL text as a dictionary key: equal when the texts are equal, hashed from the length and
    /// at most 32 bytes spread over the text. Texts that share the sample only share a bucket
    /// chain and are told apart by comparison, so the cache answers as with a full hash.
    private struct Key: Hashable {
        let sql: String

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.sql == rhs.sql }

        func hash(into hasher: inout Hasher) {
            let utf8 = sql.utf8
            hasher.combine(utf8.count)
            let sampled: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
                let step = max(1, bytes.count / 32)
                var index = bytes.count - 1
                // Eight sampled bytes per word, from the end back (statements on one table share
                // their beginning more than their end).
                var word: UInt64 = 0
                var packed = 0
                while index >= 0 {
                    word = word << 8 | UInt64(bytes[index])
                    packed += 1
                    if packed == 8 {
                        hasher.combine(word)
                        word = 0
                        packed = 0
                    }
                    index -= step
                }
                hasher.combine(word)
                return true
            }
            if sampled == nil { hasher.combine(sql) }
        }
    }

    /// One kept statement, updated in place on each use.
    fileprivate final class Entry {
        let statement: Statement
        var lastUse: UInt64
        /// Being stepped further up the stack (a nested `$expand` of the same navigation).
        var inUse = false
        /// Still in the cache: false once evicted or dropped with the others, so that a
        /// ``KeptStatement`` holding it looks its text up again.
        var isCached = true

        init(_ statement: Statement, lastUse: UInt64) {
            self.statement = statement
            self.lastUse = lastUse
        }
    }

    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private weak var connection: SQLiteConnection?
    let capacity: Int

    init(capacity: Int = 64) { self.capacity = max(capacity, 1) }

    func statement(_ sql: String, on db: SQLiteConnection) throws(ODataError) -> Statement {
        try entry(sql, on: db).statement
    }

    /// The entry for `sql`, prepared and added when missing.
    private func entry(_ sql: String, on db: SQLiteConnection) throws(ODataError) -> Entry {
        if connection !== db {
            removeAll()
            connection = db
        }
        clock &+= 1
        let key = Key(sql: sql)
        if let entry = entries[key] {
            entry.lastUse = clock
            return entry
        }
        let statement = try db.prepare(sql)
        // An evicted entry still in use stays alive with its user, and a later use of the same
        // text gets a new statement, so eviction need not look at the in-use mark.
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries.removeValue(forKey: oldest)?.isCached = false
        }
        let entry = Entry(statement, lastUse: clock)
        entries[key] = entry
        return entry
    }

    func removeAll() {
        for entry in entries.values { entry.isCached = false }
        entries.removeAll()
    }

    /// Runs `body` with the cached statement for `sql`, or with a fresh one while the cached one
    /// is still being stepped further up (a nested `$expand` of the same navigation).
    ///
    /// `kept`, when given, remembers the entry for the next use of the same text: a read that
    /// repeats then finds its statement without hashing and comparing its SQL (while the entry is
    /// still cached and the connection the same; else the text is looked up as usual).
    func with<T>(_ sql: String, kept: KeptStatement? = nil, on db: SQLiteConnection,
                 _ body: (Statement) throws(ODataError) -> T) throws(ODataError) -> T {
        let entry: Entry
        if let kept, let held = kept.entry, held.isCached, connection === db {
            clock &+= 1
            held.lastUse = clock
            entry = held
        } else {
            entry = try self.entry(sql, on: db)
            kept?.entry = entry
        }
        if entry.inUse { return try body(try db.prepare(sql)) }
        entry.inUse = true
        defer {
            entry.inUse = false
            entry.statement.rewind()
        }
        return try body(entry.statement)
    }
}

/// Where a read kept by its URL (``ReadPlanCache``) keeps its main statement's place in the
/// reader's ``StatementCache``, for one SQL text only.
final class KeptStatement {
    fileprivate var entry: StatementCache.Entry?
}
