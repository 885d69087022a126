#if canImport(Glibc)
import Glibc
#endif

/// One `String` per distinct long attribute value within one read: type names
/// (`microsoft.graph.directoryObject`) and annotation terms repeat thousands of times, and each
/// `String` of more than 15 bytes is a heap allocation, a copy and a validation, then a free when
/// the model goes. Repeats share the first one's storage instead (which also makes comparing them
/// a pointer check). Shorter values are inline in the `String` and are created as usual.
///
/// Open addressing keyed on the length and three 8-byte words of the value; every candidate is
/// compared in full (`memcmp`), so a collision costs time, never a wrong string. The table stops
/// taking new values when half full; later values are then created without sharing.
final class ValueInterner {
    private static let capacity = 1 << 13
    private static let inlineLimit = 15
    // Fixed buffers behind `let` pointers: arrays in a class's `var`s would add uniqueness and
    // exclusivity checks to every lookup. Slots are masked to `capacity - 1`, so every index is
    // in bounds by construction.
    /// Per slot: the key, 0 for an empty slot.
    private let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: ValueInterner.capacity)
    private let strings = UnsafeMutablePointer<String>.allocate(capacity: ValueInterner.capacity)
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init() {
        keys.initialize(repeating: 0, count: ValueInterner.capacity)
        strings.initialize(repeating: "", count: ValueInterner.capacity)
        count.initialize(to: 0)
    }

    deinit {
        strings.deinitialize(count: ValueInterner.capacity)
        keys.deallocate()
        strings.deallocate()
        count.deallocate()
    }

    /// The value of the `count` bytes at `base` (valid UTF-8, as libxml2 hands out).
    func string(_ base: UnsafePointer<UInt8>, count length: Int) -> String {
        let bytes = UnsafeBufferPointer(start: base, count: length)
        guard length > ValueInterner.inlineLimit else { return String(decoding: bytes, as: UTF8.self) }
        let key = ValueInterner.key(UnsafeRawPointer(base), length: length)
        let mask = ValueInterner.capacity - 1
        var slot = Int(truncatingIfNeeded: key) & mask
        // At most half full, so an empty slot ends every probe sequence.
        while keys[slot] != 0 {
            if keys[slot] == key {
                var candidate = strings[slot]
                let same = candidate.withUTF8 { stored in
                    guard stored.count == length, let storedBase = stored.baseAddress else { return false }
                    return memcmp(storedBase, base, length) == 0
                }
                if same { return candidate }
            }
            slot = (slot + 1) & mask
        }
        let created = String(decoding: bytes, as: UTF8.self)
        if count.pointee < ValueInterner.capacity / 2 {
            keys[slot] = key
            strings[slot] = created
            count.pointee += 1
        }
        return created
    }

    /// The NUL-terminated value at `pointer`.
    func string(cString pointer: UnsafePointer<UInt8>) -> String {
        string(pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
    }

    /// Length and the first, middle and last 8 bytes, mixed; never 0. `length` must be at least 8.
    private static func key(_ base: UnsafeRawPointer, length: Int) -> UInt64 {
        var key = UInt64(length) &* 0x9e37_79b9_7f4a_7c15
        key ^= base.loadUnaligned(as: UInt64.self)
        key = (key ^ (key >> 29)) &* 0xbf58_476d_1ce4_e5b9
        key ^= base.loadUnaligned(fromByteOffset: (length - 8) / 2, as: UInt64.self)
        key = (key ^ (key >> 32)) &* 0x94d0_49bb_1331_11eb
        key ^= base.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        key = (key ^ (key >> 29)) &* 0xbf58_476d_1ce4_e5b9
        key ^= key >> 32
        return key == 0 ? 1 : key
    }
}
