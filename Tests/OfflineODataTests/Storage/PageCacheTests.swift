import Testing
@_spi(Tool) @testable import OfflineOData

/// `withPageCache`: a bulk write's bounded page cache, and the connection's own put back after it.
@Suite struct PageCacheTests {
    @Test func theCacheIsSetInsideAndPutBackAfter() throws {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        try db.execute("PRAGMA cache_size = -16384")
        let inside = try db.withPageCache(kibibytes: 4096) { () throws(ODataError) -> Int64? in
            try db.scalarInt("PRAGMA cache_size")
        }
        #expect(inside == -4096)
        #expect(try db.scalarInt("PRAGMA cache_size") == -16384)
    }

    @Test func theCacheIsPutBackWhenTheBodyThrows() throws {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        try db.execute("PRAGMA cache_size = -16384")
        #expect(throws: ODataError.self) {
            try db.withPageCache(kibibytes: 2048) { () throws(ODataError) in
                throw ODataError(.misuse, "stop")
            }
        }
        #expect(try db.scalarInt("PRAGMA cache_size") == -16384)
    }

    /// A load from files writes with ``StoreFile/loadPageCacheKiB``, then reads go on with the
    /// store's 16 MB, after a load that worked and after one that failed (nothing loaded).
    @Test func aLoadBoundsItsCacheAndPutsTheStoresBack() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("p.store"), metadata: LocalWriterTests.metadata,
                                          definingRequests: [DefiningRequest(name: "All", url: "TravelagencyCollection")])
        defer { store.close() }
        let page = Array(#"{"value":[{"agencynum":"1","name":"A"},{"agencynum":"2","name":"B"}]}"#.utf8)
        var seen: [Int64?] = []
        var pages = [page][...]
        let loaded = try store.load(definingRequest: "All") { () throws(ODataError) -> [UInt8]? in
            // The load holds the connection (its lock is recursive): the cache a page is written with.
            seen.append(try store.file.withConnection { db throws(ODataError) in try db.scalarInt("PRAGMA cache_size") })
            return pages.popFirst()
        }
        #expect(loaded == 2)
        #expect(seen == [Int64(-StoreFile.loadPageCacheKiB), Int64(-StoreFile.loadPageCacheKiB)])
        let cacheAfter = try store.file.withConnection { db throws(ODataError) in try db.scalarInt("PRAGMA cache_size") }
        #expect(cacheAfter == -16384)
        #expect(throws: ODataError.self) {
            try store.load(pages: [Array(#"{"value":[{"agencynum":"#.utf8)], definingRequest: "All")
        }
        let cacheAfterFailure = try store.file.withConnection { db throws(ODataError) in try db.scalarInt("PRAGMA cache_size") }
        #expect(cacheAfterFailure == -16384)
    }
}
