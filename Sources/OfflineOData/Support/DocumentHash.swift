/// A 64-bit FNV-1a hash of a document's bytes, as 16 hex digits: how a store recognises the
/// `$metadata` document it saw last when the service gives neither an ETag nor a date. It detects
/// change, nothing more (a service wanting to hide a change need only keep its model).
enum DocumentHash {
    static func of(_ bytes: [UInt8]) -> String {
        let hash = bytes.withUnsafeBufferPointer { buffer -> UInt64 in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            return hash
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "-" + String(bytes.count)
    }
}
