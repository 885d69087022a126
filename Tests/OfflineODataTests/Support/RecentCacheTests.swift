import Testing
@_spi(Tool) @testable import OfflineOData

/// The read path's bounded caches keep what was used within the last generation and drop the rest.
@Suite struct RecentCacheTests {
    @Test func aHitKeepsAnEntryAndWhatWentUnusedForAGenerationIsDropped() {
        var cache = RecentCache<String, Int>(capacity: 2)
        cache.insert(1, for: "a")
        cache.insert(2, for: "b")
        cache.insert(3, for: "c")  // the newer generation was full: a and b are the older one now
        #expect(cache.count == 3)
        #expect(cache.value(for: "a") == 1)  // moved to the newer generation, beside c
        cache.insert(4, for: "d")  // full again: c and a become the older one, b is dropped
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1 && cache.value(for: "c") == 3 && cache.value(for: "d") == 4)
        #expect(cache.count <= 2 * cache.capacity)
        cache.removeAll()
        #expect(cache.count == 0 && cache.value(for: "d") == nil)
    }

    @Test func itNeverHoldsMoreThanTwoGenerations() {
        var cache = RecentCache<Int, Int>(capacity: 8)
        for key in 0..<1000 {
            cache.insert(key, for: key)
            #expect(cache.count <= 16)
        }
        #expect(cache.value(for: 999) == 999 && cache.value(for: 0) == nil)
    }
}
