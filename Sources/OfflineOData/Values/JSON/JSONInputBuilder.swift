#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that arrive chunk by chunk (a download's page, off the network), gathered straight
/// into the padded buffer a ``JSONInput`` reads: the page is then held once, not once as the
/// answer's body and again as the reader's copy.
///
/// The buffer grows with `realloc`, which moves a large buffer's pages instead of copying them,
/// so growing costs no second copy either. Not thread-safe: one transfer fills it.
final class JSONInputBuilder {
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    /// The bytes gathered so far.
    private(set) var count = 0

    init() {}

    deinit { free(base) }

    /// Adds `chunk` after the bytes gathered so far; false when memory for it cannot be had.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let source = chunk.baseAddress, chunk.count > 0 else { return true }
        let needed = count + chunk.count + JSONInput.padding
        if needed > capacity {
            let grown = max(needed, capacity * 2, 16 << 10)
            guard let moved = realloc(base, grown) else { return false }
            base = moved.assumingMemoryBound(to: UInt8.self)
            capacity = grown
        }
        guard let base else { return false }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// The bytes gathered so far, as an array (for an answer that is not read as a page).
    var bytes: [UInt8] {
        guard let base else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Hands the gathered bytes to a reader without copying them; the builder is empty after.
    func finish() -> JSONInput {
        // `append` always leaves room for the padding after the bytes.
        guard let filled = base else { return JSONInput(UnsafeRawBufferPointer(start: nil, count: 0)) }
        (filled + count).initialize(repeating: 0, count: JSONInput.padding)
        let input = JSONInput(adoptingMalloced: filled, count: count)
        base = nil
        capacity = 0
        count = 0
        return input
    }
}
