#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that arrive chunk by chunk (a download's page, off the network), gathered straight
/// into the padded buffer a ``JSONInput`` reads: the page is then held once, not once as the
/// answer's body and again as the reader's copy.
///
/// The buffer is made as large as the answer announces (``reserve(_:)``) and grows by doubling
/// when it says nothing; large buffers are mapped and given back to the system when freed
/// (``PageMemory``). With a known maximum (the transport's answer limit), a buffer outgrowing
/// the small ones is mapped at that maximum at once: the system gives memory only for the pages
/// written, so the bytes are not copied again as they grow (a doubling copies the page, and held
/// it twice for a moment: a gzip bomb stopped at the limit cost twice the limit). Not
/// thread-safe: one transfer fills it.
final class JSONInputBuilder {
    private var base: UnsafeMutablePointer<UInt8>?
    /// The buffer's size, padding room included (what ``PageMemory/free(_:size:)`` needs).
    private var capacity = 0
    /// The bytes gathered so far.
    private(set) var count = 0
    /// The most bytes the builder is given (nil: unknown), see the type's description.
    private let maximumSize: Int?
    /// A maximum above this (an answer limit set to "no limit") is not mapped whole.
    static let largestMapping = 16 << 30

    init(maximumSize: Int? = nil) {
        self.maximumSize = maximumSize
    }

    deinit {
        if let base { PageMemory.free(base, size: capacity) }
    }

    /// Makes room for `total` bytes in all (the length an answer announces), so they arrive
    /// into one buffer of their size instead of a chain of doubled ones. False when the memory
    /// cannot be had.
    @discardableResult
    func reserve(_ total: Int) -> Bool {
        let needed = total + JSONInput.padding
        guard needed > capacity else { return true }
        guard let (grown, size) = PageMemory.allocate(needed) else { return false }
        if let base {
            UnsafeMutableRawPointer(grown).copyMemory(from: base, byteCount: count)
            PageMemory.free(base, size: capacity)
        }
        base = grown
        capacity = size
        return true
    }

    /// Adds `chunk` after the bytes gathered so far; false when memory for it cannot be had.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let source = chunk.baseAddress, chunk.count > 0 else { return true }
        let needed = count + chunk.count
        if needed + JSONInput.padding > capacity {
            let doubled = max(needed, capacity * 2, 16 << 10)
            // One mapping of the maximum; doubling when there is none, or the system refuses it.
            let mappedAtMaximum = maximumSize.map { maximum in
                needed <= maximum && maximum <= Self.largestMapping && doubled + JSONInput.padding >= PageMemory.mappingThreshold
                    && reserve(maximum)
            } ?? false
            guard mappedAtMaximum || reserve(doubled) else { return false }
        }
        guard let base else { return false }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: chunk.count)
        count += chunk.count
        return true
    }

    /// The bytes gathered so far, as an array (for an answer that is not read as a page).
    var bytes: [UInt8] { bytes(upTo: count) }

    /// The first `limit` bytes gathered so far, as an array.
    func bytes(upTo limit: Int) -> [UInt8] {
        guard let base else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: min(max(limit, 0), count)))
    }

    /// Hands the gathered bytes to a reader without copying them; the builder is empty after.
    func finish() -> JSONInput {
        // `append` always leaves room for the padding after the bytes.
        guard let filled = base else { return JSONInput(UnsafeRawBufferPointer(start: nil, count: 0)) }
        (filled + count).initialize(repeating: 0, count: JSONInput.padding)
        let input = JSONInput(adoptingPageMemory: filled, size: capacity, count: count)
        base = nil
        capacity = 0
        count = 0
        return input
    }
}
