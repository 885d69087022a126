import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct EntityIDSetTests {
    /// Against `Set<Int64>`: dense runs (lists turning into bitmaps), sparse ids, removals, repeats.
    @Test func behavesAsASetOfIDs() {
        var ids = EntityIDSet()
        var reference = Set<Int64>()
        var generator = SystemRandomNumberGenerator()
        let dense = (Int64(1)...70_000).map { $0 }
        let sparse = (0..<3_000).map { _ in Int64.random(in: 1...Int64.max, using: &generator) }
        for id in dense + sparse + dense.prefix(100) {
            #expect(ids.insert(id) == reference.insert(id).inserted)
        }
        for id in dense.filter({ $0 % 3 == 0 }) + sparse.prefix(1_000) + [0, 5_000_000] {
            #expect(ids.remove(id) == (reference.remove(id) != nil))
        }
        #expect(ids.count == reference.count)
        for id in dense + sparse + [0, 65_536, 131_071, Int64.max] {
            #expect(ids.contains(id) == reference.contains(id), "\(id)")
        }
        let copy = ids
        ids.insert(3)
        #expect(ids.contains(3) && !copy.contains(3))
        #expect(EntityIDSet().isEmpty && !ids.isEmpty)
    }
}
