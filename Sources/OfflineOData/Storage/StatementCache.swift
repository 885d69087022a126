/// Prepared statements kept per SQL text, least recently used first out, so repeated reads (and
/// the few statements of a local write) skip SQLite's parse and plan. Tied to one connection:
/// using another one empties it.
final class StatementCache {
    private var entries: [String: (statement: Statement, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    private weak var connection: SQLiteConnection?
    let capacity: Int

    init(capacity: Int = 64) { self.capacity = max(capacity, 1) }

    func statement(_ sql: String, on db: SQLiteConnection) throws(ODataError) -> Statement {
        if connection !== db {
            entries.removeAll()
            connection = db
        }
        clock &+= 1
        if let entry = entries[sql] {
            entries[sql] = (entry.statement, clock)
            return entry.statement
        }
        let statement = try db.prepare(sql)
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        entries[sql] = (statement, clock)
        return statement
    }

    func removeAll() { entries.removeAll() }

    /// Runs `body` with the cached statement for `sql`, or with a fresh one while the cached one
    /// is still being stepped further up (a nested `$expand` of the same navigation).
    func with<T>(_ sql: String, on db: SQLiteConnection, _ body: (Statement) throws(ODataError) -> T) throws(ODataError) -> T {
        if inUse.contains(sql) { return try body(try db.prepare(sql)) }
        let statement = try self.statement(sql, on: db)
        inUse.insert(sql)
        defer {
            inUse.remove(sql)
            statement.rewind()
        }
        return try body(statement)
    }

    private var inUse: Set<String> = []
}
