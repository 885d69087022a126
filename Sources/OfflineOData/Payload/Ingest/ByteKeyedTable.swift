/// Looks up payload member names by their raw UTF-8 bytes, without making a `String` per member:
/// a page of 1,000 entities with 15 properties asks 15,000 times.
///
/// FNV-1a picks the candidate, then the bytes are compared, so a lookup is exact whatever the
/// hash does; names whose hash collides with an earlier one are left out and found by the
/// caller's slower `String` path.
struct ByteKeyedTable<Value> {
    private var entries: [UInt64: (bytes: [UInt8], value: Value)] = [:]

    init(_ pairs: [(String, Value)]) {
        for (name, value) in pairs {
            let bytes = Array(name.utf8)
            let hash = bytes.withUnsafeBufferPointer { Self.hash($0) }
            if entries[hash] == nil { entries[hash] = (bytes, value) }
        }
    }

    func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let entry = entries[Self.hash(bytes)], entry.bytes.count == bytes.count else { return nil }
        return entry.bytes.withUnsafeBufferPointer { stored in
            stored.elementsEqual(bytes) ? entry.value : nil
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
