/// Maps NUL-terminated UTF-8 names (as libxml2 hands them out) to values without creating a
/// `String` per lookup: the reader calls this for every element and attribute name.
///
/// One pass over the bytes computes an FNV-1a hash and the length; the candidate with that hash
/// is then compared byte by byte, so a lookup is correct whatever the hash does.
struct ByteNameTable<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let bytes: [UInt8]
        let value: Value
    }

    private var entries: [UInt64: Entry] = [:]

    init(_ names: [(String, Value)]) {
        for (name, value) in names {
            let bytes = Array(name.utf8)
            let hash = bytes.withUnsafeBufferPointer { buffer in
                ByteNameTable.hash(buffer.baseAddress, limit: buffer.count).hash
            }
            // A colliding second name is left out; its lookups fail byte comparison safely.
            if entries[hash] == nil { entries[hash] = Entry(bytes: bytes, value: value) }
        }
    }

    /// The value for the name at `pointer` (NUL-terminated), or nil.
    func value(for pointer: UnsafePointer<UInt8>?) -> Value? {
        guard let pointer else { return nil }
        let (hash, length) = ByteNameTable.hash(pointer, limit: Int.max)
        guard let entry = entries[hash], entry.bytes.count == length else { return nil }
        for index in 0..<length where entry.bytes[index] != pointer[index] { return nil }
        return entry.value
    }

    /// FNV-1a over the bytes up to a NUL (or `limit` bytes), and the number of bytes hashed.
    private static func hash(_ pointer: UnsafePointer<UInt8>?, limit: Int) -> (hash: UInt64, length: Int) {
        guard let pointer else { return (0, 0) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var length = 0
        while length < limit {
            let byte = pointer[length]
            if byte == 0 && limit == Int.max { break }
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            length += 1
        }
        return (hash, length)
    }
}
