/// A followed URL as two independent 64-bit hashes (Swift's seeded one and FNV-1a): a download, or
/// an online read that follows next links, keeps one per page, 16 bytes however long the service
/// makes its links.
struct LinkKey: Hashable {
    let seeded: Int
    let fnv: UInt64

    init(_ url: String) {
        seeded = url.hashValue
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        fnv = hash
    }
}
