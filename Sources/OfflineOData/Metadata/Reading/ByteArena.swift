#if canImport(Glibc)
import Glibc
#endif

/// One growing block of bytes that the recorded attribute values and texts are copied into, each
/// NUL-terminated, addressed by offset while recording and by pointer once recording is done.
///
/// A `malloc`ed block behind `let` pointers rather than a `[UInt8]`: it is appended to for every
/// attribute of the document, and the reader hands out pointers into it that must stay put.
final class ByteArena {
    private let base: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private let counts: UnsafeMutablePointer<(count: Int, capacity: Int)>

    init() {
        base = .allocate(capacity: 1)
        base.initialize(to: nil)
        counts = .allocate(capacity: 1)
        counts.initialize(to: (0, 0))
    }

    deinit {
        free(base.pointee)
        base.deallocate()
        counts.deallocate()
    }

    /// Bytes appended so far (the offset the next append starts at).
    var count: Int { counts.pointee.count }

    /// Appends `length` bytes; false (and nothing appended) when memory runs out.
    func append(_ bytes: UnsafePointer<UInt8>, count length: Int) -> Bool {
        guard length > 0 else { return true }
        guard reserve(length) else { return false }
        guard let block = base.pointee else { return false }
        memcpy(block + counts.pointee.count, bytes, length)
        counts.pointee.count += length
        return true
    }

    /// Appends one NUL byte, ending a value.
    func appendTerminator() -> Bool {
        guard reserve(1), let block = base.pointee else { return false }
        block[counts.pointee.count] = 0
        counts.pointee.count += 1
        return true
    }

    /// Drops everything from `offset` on (a run of text that turned out to be layout).
    func truncate(to offset: Int) {
        if offset >= 0 && offset < counts.pointee.count { counts.pointee.count = offset }
    }

    /// The NUL-terminated bytes at `offset`; valid until the next append and for the arena's
    /// lifetime once appending is over. Nil for an offset the arena does not hold.
    func pointer(at offset: Int) -> UnsafePointer<UInt8>? {
        guard offset >= 0, offset < counts.pointee.count, let block = base.pointee else { return nil }
        return UnsafePointer(block + offset)
    }

    /// Room for `extra` more bytes, doubling the block as needed.
    private func reserve(_ extra: Int) -> Bool {
        let (count, capacity) = counts.pointee
        let (needed, overflow) = count.addingReportingOverflow(extra)
        guard !overflow else { return false }
        if needed <= capacity { return true }
        var grown = max(capacity, 1 << 16)
        while grown < needed {
            let (doubled, tooLarge) = grown.multipliedReportingOverflow(by: 2)
            guard !tooLarge else { return false }
            grown = doubled
        }
        guard let block = realloc(base.pointee, grown) else { return false }
        base.pointee = block.assumingMemoryBound(to: UInt8.self)
        counts.pointee.capacity = grown
        return true
    }
}
