/// The entity ids (`_ood_id`, SQLite rowids) an ingest session wrote, kept in about a bit per id.
///
/// A `Set<Int64>` took 16 bytes per id at a million (and more while it grew), which made a
/// download's peak memory grow with its size. Rowids are dense (SQLite hands out the largest
/// plus one), so the ids are grouped by their high bits into chunks of 65,536: a chunk holds a
/// sorted list of its low 16 bits while it has at most 4,096 members (2 bytes each), then a
/// bitmap of 8 KB. A million dense ids take 16 bitmaps, 128 KB.
struct EntityIDSet {
    private struct Chunk {
        /// The members' low 16 bits, sorted, while `bits` is empty.
        var sorted: [UInt16] = []
        /// 1,024 words once the list outgrew ``EntityIDSet/listLimit``.
        var bits: [UInt64] = []

        func contains(_ low: UInt16) -> Bool {
            if bits.isEmpty { return Self.position(of: low, in: sorted).found }
            return bits[Int(low >> 6)] & (1 << UInt64(low & 63)) != 0
        }

        /// True when `low` was not there yet.
        mutating func insert(_ low: UInt16) -> Bool {
            if bits.isEmpty {
                let (index, found) = Self.position(of: low, in: sorted)
                if found { return false }
                if sorted.count < EntityIDSet.listLimit {
                    sorted.insert(low, at: index)
                    return true
                }
                bits = Array(repeating: 0, count: 1024)
                for member in sorted { bits[Int(member >> 6)] |= 1 << UInt64(member & 63) }
                sorted = []
            }
            let word = Int(low >> 6), bit: UInt64 = 1 << UInt64(low & 63)
            if bits[word] & bit != 0 { return false }
            bits[word] |= bit
            return true
        }

        /// True when `low` was there.
        mutating func remove(_ low: UInt16) -> Bool {
            if bits.isEmpty {
                let (index, found) = Self.position(of: low, in: sorted)
                if found { sorted.remove(at: index) }
                return found
            }
            let word = Int(low >> 6), bit: UInt64 = 1 << UInt64(low & 63)
            if bits[word] & bit == 0 { return false }
            bits[word] &= ~bit
            return true
        }

        /// Where `low` is in `list`, or where it would go.
        private static func position(of low: UInt16, in list: [UInt16]) -> (index: Int, found: Bool) {
            var lower = 0, upper = list.count
            while lower < upper {
                let middle = (lower + upper) / 2
                if list[middle] < low { lower = middle + 1 } else { upper = middle }
            }
            return (lower, lower < list.count && list[lower] == low)
        }
    }

    /// Members of a chunk kept as a list before it becomes a bitmap (where both take 8 KB).
    static let listLimit = 4096

    private var chunks: [Int64: Chunk] = [:]
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    func contains(_ id: Int64) -> Bool {
        chunks[id >> 16]?.contains(UInt16(truncatingIfNeeded: id)) ?? false
    }

    /// Adds `id`; true when it was not there yet.
    @discardableResult
    mutating func insert(_ id: Int64) -> Bool {
        // The defaulted subscript changes the chunk in place (no copy of its arrays).
        guard chunks[id >> 16, default: Chunk()].insert(UInt16(truncatingIfNeeded: id)) else { return false }
        count += 1
        return true
    }

    /// Takes `id` out; true when it was there.
    @discardableResult
    mutating func remove(_ id: Int64) -> Bool {
        guard chunks[id >> 16]?.remove(UInt16(truncatingIfNeeded: id)) == true else { return false }
        count -= 1
        return true
    }
}
