import Testing
@testable import OfflineOData

/// A read kept by its URL remembers its statement's place in the reader's cache
/// (``KeptStatement``), so that a repeat skips the lookup by SQL text; it must never run a
/// statement the cache let go of, nor one of another connection.
@Suite struct StatementCacheTests {
    private func used(_ cache: StatementCache, _ sql: String, kept: KeptStatement? = nil,
                      on db: SQLiteConnection) throws(ODataError) -> Statement? {
        var used: Statement?
        var stepped = false
        try cache.with(sql, kept: kept, on: db) { (statement: Statement) throws(ODataError) in
            used = statement
            stepped = try statement.step()
        }
        #expect(stepped, "\(sql) gave its row")
        return used
    }

    @Test func aKeptStatementIsUsedOnlyWhileTheCacheHoldsIt() throws {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        let cache = StatementCache(capacity: 2)
        let kept = KeptStatement()
        let first = try used(cache, "SELECT 1", kept: kept, on: db)
        #expect(try used(cache, "SELECT 1", kept: kept, on: db) === first, "found again through what was kept")
        #expect(try cache.statement("SELECT 1", on: db) === first, "the one the cache holds")

        // Two other texts make the cache let the first go: the kept place is not used then.
        _ = try used(cache, "SELECT 2", on: db)
        _ = try used(cache, "SELECT 3", on: db)
        let afterEviction = try used(cache, "SELECT 1", kept: kept, on: db)
        #expect(afterEviction !== first, "prepared again, as the cache no longer holds the old one")
        #expect(try cache.statement("SELECT 1", on: db) === afterEviction)

        cache.removeAll()
        let afterRemoval = try used(cache, "SELECT 1", kept: kept, on: db)
        #expect(afterRemoval !== afterEviction, "a cache emptied holds nothing kept places may use")

        // Another connection empties the cache: nothing prepared on the first one runs on it.
        let other = try SQLiteConnection(path: ":memory:", create: true)
        let onOther = try used(cache, "SELECT 1", kept: kept, on: other)
        #expect(onOther !== afterRemoval)
        #expect(try used(cache, "SELECT 1", kept: kept, on: other) === onOther)
    }

    @Test func aKeptStatementInUseIsNotSteppedTwice() throws {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        let cache = StatementCache()
        let kept = KeptStatement()
        let outer = try used(cache, "SELECT 1", kept: kept, on: db)
        var nested: Statement?
        var running: Statement?
        try cache.with("SELECT 1", kept: kept, on: db) { (statement: Statement) throws(ODataError) in
            running = statement
            // A nested use of the same text (an `$expand` of the same navigation) gets a statement of its own.
            nested = try used(cache, "SELECT 1", kept: kept, on: db)
        }
        #expect(running === outer)
        #expect(nested != nil && nested !== running)
    }
}
