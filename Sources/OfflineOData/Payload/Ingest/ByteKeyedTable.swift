#if canImport(Glibc)
import Glibc
#endif

/// Looks up payload member names by their raw UTF-8 bytes, without making a `String` per member:
/// a page of 1,000 entities with 15 properties asks 15,000 times.
///
/// Open addressing over a power-of-two slot array, FNV-1a hashes, and the names' bytes kept in
/// one pool: a lookup hashes the bytes once, then compares them with the candidate's, so it is
/// exact whatever the hash does, and allocates nothing. A class with constant arrays, so a lookup
/// through the plan that holds it retains none of them.
final class ByteKeyedTable<Value> {
    private let slots: [Int32]          // index into `entries`, or -1 when empty
    private let entries: [(hash: UInt64, start: Int, count: Int, value: Value)]
    private let pool: [UInt8]
    private let mask: Int

    init(_ pairs: [(String, Value)]) {
        var capacity = 8
        while capacity < pairs.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        var entries: [(hash: UInt64, start: Int, count: Int, value: Value)] = []
        var pool: [UInt8] = []
        mask = capacity - 1
        for (name, value) in pairs {
            let bytes = Array(name.utf8)
            let hash = bytes.withUnsafeBufferPointer { Self.hash($0) }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entries.count)
            entries.append((hash, pool.count, bytes.count, value))
            pool.append(contentsOf: bytes)
        }
        self.slots = slots
        self.entries = entries
        self.pool = pool
    }

    func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(bytes)
        var slot = Int(truncatingIfNeeded: hash) & mask
        return slots.withUnsafeBufferPointer { slots -> Value? in
            pool.withUnsafeBufferPointer { pool -> Value? in
                entries.withUnsafeBufferPointer { entries -> Value? in
                    // At most half the slots are used, so an empty one ends every probe.
                    while true {
                        let index = Int(slots[slot])
                        guard index >= 0 else { return nil }
                        let entry = entries[index]
                        if entry.hash == hash, entry.count == bytes.count {
                            guard entry.count > 0 else { return entry.value }
                            if let stored = pool.baseAddress, let asked = bytes.baseAddress,
                               memcmp(stored + entry.start, asked, entry.count) == 0 {
                                return entry.value
                            }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
