#if canImport(Glibc)
import Glibc
#endif

/// Maps NUL-terminated UTF-8 names (as libxml2 hands them out) to values without creating a
/// `String` per lookup: the reader calls this for every element and attribute name.
///
/// A lookup takes the length (`strlen`), mixes it with a few sampled bytes into a slot of a small
/// open-addressing table (linear probing, at most a quarter full), and compares the candidate's
/// bytes with `memcmp`. No `Hasher` (SipHash) runs per lookup: the names are few and known, and a
/// byte-by-byte hash of a 45-byte namespace URI per element cost more than the comparison. A
/// lookup is correct whatever the sampling does: every candidate is compared in full.
struct ByteNameTable<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let bytes: [UInt8]
        let value: Value
    }

    private let entries: [Entry]
    /// Index into `entries` plus one; 0 marks an empty slot.
    private let slots: [Int32]
    private let mask: Int
    /// The longest name; longer inputs are rejected before any probing.
    private let longest: Int

    init(_ names: [(String, Value)]) {
        var entries: [Entry] = []
        for (name, value) in names where !entries.contains(where: { $0.bytes == Array(name.utf8) }) {
            entries.append(Entry(bytes: Array(name.utf8), value: value))
        }
        var size = 8
        while size < entries.count * 4 { size *= 2 }
        var slots = [Int32](repeating: 0, count: size)
        for (index, entry) in entries.enumerated() {
            let key = entry.bytes.withUnsafeBufferPointer { buffer in
                ByteNameTable.key(buffer.baseAddress, length: buffer.count)
            }
            var slot = key & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(index + 1)
        }
        self.entries = entries
        self.slots = slots
        mask = size - 1
        longest = entries.map(\.bytes.count).max() ?? 0
    }

    /// The value for the name at `pointer` (NUL-terminated), or nil.
    func value(for pointer: UnsafePointer<UInt8>?) -> Value? {
        guard let pointer else { return nil }
        let length = strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
        guard length > 0, length <= longest else { return nil }
        var slot = ByteNameTable.key(pointer, length: length) & mask
        // The table is at most a quarter full, so an empty slot ends every probe sequence.
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { return nil }
            let entry = entries[stored - 1]
            if entry.bytes.count == length {
                let same = entry.bytes.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return false }
                    return memcmp(base, pointer, length) == 0
                }
                if same { return entry.value }
            }
            slot = (slot + 1) & mask
        }
    }

    /// The length mixed with the first, middle and last bytes and two near the end (where the
    /// CSDL namespace URIs differ: `.../2008/09/edm`, `.../2008/01/edm`). `length` must be > 0.
    private static func key(_ pointer: UnsafePointer<UInt8>?, length: Int) -> Int {
        guard let pointer, length > 0 else { return 0 }
        var key = UInt64(length)
        key = key &* 31 &+ UInt64(pointer[0])
        key = key &* 31 &+ UInt64(pointer[length / 2])
        key = key &* 31 &+ UInt64(pointer[length - 1])
        if length >= 8 {
            key = key &* 31 &+ UInt64(pointer[length - 5])
            key = key &* 31 &+ UInt64(pointer[length - 8])
        }
        key = (key ^ (key >> 29)) &* 0xbf58_476d_1ce4_e5b9
        return Int(truncatingIfNeeded: key ^ (key >> 32))
    }
}
