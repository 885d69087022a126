/// The reader's own copy of the input, followed by zero padding.
///
/// Copying once (a memcpy, small next to parsing) lets the reader keep a stable pointer for its whole
/// life without unsafe pointer escapes, and the padding lets the hot loops read a few bytes past the
/// end without a bounds check per byte: a zero byte stops every scan, and is then told apart from a
/// real control character by comparing the index with ``count``.
///
/// Sendable because nothing writes to the bytes after `init`.
final class JSONInput: @unchecked Sendable {
    /// Readable zero bytes after the input; at least the 8 of ``JSONStringScanner``'s word loads.
    static let padding = 16

    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        pageMemorySize = nil
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + JSONInput.padding)
        if let source = bytes.baseAddress, bytes.count > 0 {
            UnsafeMutableRawPointer(base).copyMemory(from: source, byteCount: bytes.count)
        }
        (base + bytes.count).initialize(repeating: 0, count: JSONInput.padding)
    }

    /// An input of `count` bytes that `fill` writes (reading a stored page straight into it).
    init(count: Int, fill: (UnsafeMutableRawPointer) -> Void) {
        self.count = count
        pageMemorySize = nil
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: count + JSONInput.padding)
        base.initialize(repeating: 0, count: count + JSONInput.padding)
        fill(UnsafeMutableRawPointer(base))
    }

    /// The size of `base` when it came from ``PageMemory`` (``JSONInputBuilder``), which frees
    /// it; nil when this input allocated it.
    private let pageMemorySize: Int?

    /// Takes over `base`, a ``PageMemory`` buffer of `size` bytes whose first `count` bytes are
    /// followed by ``padding`` zero bytes (``JSONInputBuilder/finish()``): bytes gathered in
    /// place need no copy.
    init(adoptingPageMemory base: UnsafeMutablePointer<UInt8>, size: Int, count: Int) {
        self.base = base
        self.count = count
        pageMemorySize = size
    }

    deinit {
        if let pageMemorySize { PageMemory.free(base, size: pageMemorySize) } else { base.deallocate() }
    }

    /// The input without the padding.
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The bytes of `range`, clamped to the input so that a token from another reader cannot read
    /// out of bounds.
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        let lower = min(max(range.lowerBound, 0), count)
        let upper = min(max(range.upperBound, lower), count)
        return UnsafeBufferPointer(start: base + lower, count: upper - lower)
    }
}
