#if canImport(Glibc)
import Glibc
#endif

/// A growable list of plain values in `malloc`ed memory, for the SAX2 recording.
///
/// The recording appends once or more per element, attribute and text of the document from C
/// callbacks; a Swift `Array` there costs a uniqueness check and, inside a class, an exclusivity
/// check per append. This list lives inside a struct reached through a pointer and has neither.
/// It never traps: an append that cannot get memory returns false and appends nothing, and a read
/// outside the list returns nil. The owner calls ``release()`` once.
struct RawList<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private var capacity = 0

    /// Appends `element`; false when memory runs out.
    @inline(__always)
    mutating func append(_ element: Element) -> Bool {
        if count == capacity, !reserve(1) { return false }
        guard let base else { return false }
        (base + count).initialize(to: element)
        count += 1
        return true
    }

    /// The element at `index`, nil outside the list.
    @inline(__always)
    func element(at index: Int) -> Element? {
        guard index >= 0, index < count, let base else { return nil }
        return base[index]
    }

    /// Replaces the element at `index` (nothing happens outside the list).
    @inline(__always)
    mutating func replace(at index: Int, with element: Element) {
        guard index >= 0, index < count, let base else { return }
        base[index] = element
    }

    var last: Element? { element(at: count - 1) }

    mutating func removeLast() -> Element? {
        guard let last else { return nil }
        count -= 1
        return last
    }

    /// Drops the elements from `index` on.
    mutating func truncate(to index: Int) {
        if index >= 0 && index < count { count = index }
    }

    /// The elements, valid until the next append or ``release()``.
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// Room for `extra` more elements, doubling as needed; false when memory runs out.
    mutating func reserve(_ extra: Int) -> Bool {
        let (needed, overflow) = count.addingReportingOverflow(extra)
        guard !overflow else { return false }
        if needed <= capacity { return true }
        var grown = max(capacity, 256)
        while grown < needed {
            let (doubled, tooLarge) = grown.multipliedReportingOverflow(by: 2)
            guard !tooLarge else { return false }
            grown = doubled
        }
        let (bytes, tooLarge) = grown.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !tooLarge, let block = realloc(base, bytes) else { return false }
        base = block.bindMemory(to: Element.self, capacity: grown)
        capacity = grown
        return true
    }

    /// Frees the memory; the list is empty afterwards.
    mutating func release() {
        free(base)
        base = nil
        count = 0
        capacity = 0
    }
}

extension RawList where Element == UInt8 {
    /// Appends `length` bytes; false (and nothing appended) when memory runs out.
    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count length: Int) -> Bool {
        guard length > 0 else { return true }
        guard reserve(length), let base else { return false }
        memcpy(base + count, bytes, length)
        count += length
        return true
    }

    /// The NUL-terminated bytes at `offset`, nil outside the list.
    func pointer(at offset: Int) -> UnsafePointer<UInt8>? {
        guard offset >= 0, offset < count, let base else { return nil }
        return UnsafePointer(base + offset)
    }
}
