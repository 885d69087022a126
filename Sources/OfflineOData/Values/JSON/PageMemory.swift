#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for a page's bytes (``JSONInputBuilder``): large buffers are mapped from the system
/// and given back to it when freed, small ones come from `malloc`.
///
/// Why not `malloc` for all: glibc serves a large block once freed from its heap afterwards (it
/// raises its mapping threshold to the freed size) and keeps what is freed there, so a download
/// of large pages held about twice its page in memory, even though only one page was alive.
enum PageMemory {
    /// Buffers from this size up are mapped.
    static let mappingThreshold = 256 << 10

    /// A buffer of at least `size` bytes: its pointer and its real size (what ``free(_:size:)``
    /// needs), or nil when the memory cannot be had.
    static func allocate(_ size: Int) -> (UnsafeMutablePointer<UInt8>, Int)? {
        guard size >= mappingThreshold else {
            return malloc(size).map { ($0.assumingMemoryBound(to: UInt8.self), size) }
        }
        let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        let rounded = (size + pageSize - 1) / pageSize * pageSize
        #if canImport(Darwin)
        let flags = MAP_PRIVATE | MAP_ANON
        #else
        let flags = MAP_PRIVATE | MAP_ANONYMOUS
        #endif
        guard let mapped = mmap(nil, rounded, PROT_READ | PROT_WRITE, flags, -1, 0),
              mapped != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        return (mapped.assumingMemoryBound(to: UInt8.self), rounded)
    }

    /// Gives back a buffer ``allocate(_:)`` made, with the size it said.
    static func free(_ base: UnsafeMutablePointer<UInt8>, size: Int) {
        if size >= mappingThreshold {
            munmap(UnsafeMutableRawPointer(base), size)
        } else {
            freeMalloced(base)
        }
    }
}

/// The C library's `free` (``PageMemory/free(_:size:)`` hides the name inside the enum).
@inline(__always)
private func freeMalloced(_ pointer: UnsafeMutablePointer<UInt8>) {
    #if canImport(Glibc)
    Glibc.free(pointer)
    #else
    Darwin.free(pointer)
    #endif
}
