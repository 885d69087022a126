#if canImport(Glibc)
import Glibc
#endif

/// What opening a store learns from the files beside it: whether its last user ended without
/// closing it, and whether it can be written at all.
enum StoreRecovery {
    /// Whether the store at `path` was left open by a user that ended without closing it (a crash,
    /// kill -9): its write-ahead log holds frames while no connection has the store open. The
    /// last connection to close a store folds the log into the file and removes it; one that dies
    /// leaves it. Whether anyone has the store open is read from SQLite's own lock on the
    /// shared-memory file (`-shm`, byte 128, held by every open connection), in `/proc/locks`,
    /// without opening the file: closing a descriptor of it would drop this process's own locks.
    /// When that cannot be told, the answer is false (no check).
    static func wasLeftOpen(path: String) -> Bool {
        var log = stat()
        guard stat(path + "-wal", &log) == 0, log.st_size > 0 else { return false }
        var shm = stat()
        guard stat(path + "-shm", &shm) == 0 else { return true }
        guard let locks = readLocksTable() else { return false }
        return !locks.contains { $0.inode == UInt64(shm.st_ino) && $0.start <= 128 && 128 <= $0.end }
    }

    /// One advisory lock of `/proc/locks`: the file's inode and the byte range.
    private struct HeldLock {
        var inode: UInt64
        var start: UInt64
        var end: UInt64
    }

    /// The locks of `/proc/locks` (lines such as `1: POSIX ADVISORY READ 4711 08:01:1234 128 128`),
    /// or nil when it cannot be read.
    private static func readLocksTable() -> [HeldLock]? {
        let fd = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk.prefix(count))
        }
        var locks: [HeldLock] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // The device:inode field is the one with two colons; the range follows it.
            guard let at = fields.firstIndex(where: { $0.filter { $0 == ":" }.count == 2 }),
                  at + 2 < fields.count,
                  let inodeText = fields[at].split(separator: ":").last, let inode = UInt64(inodeText),
                  let start = UInt64(fields[at + 1])
            else { continue }
            locks.append(HeldLock(inode: inode, start: start, end: UInt64(fields[at + 2]) ?? UInt64.max))
        }
        return locks
    }

    /// Whether this process may not write the file at `path` or make files in its folder (the
    /// WAL's shared-memory file).
    static func isWriteProtected(path: String) -> Bool {
        guard access(path, F_OK) == 0 else { return false }
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        return access(path, W_OK) != 0 || access(folder.isEmpty ? "/" : folder, W_OK) != 0
    }

    /// A write-protected store is read as an unchanging file, which leaves out its write-ahead
    /// log: refused when the log holds changes.
    static func requireNoPendingLog(path: String) throws(ODataError) {
        var log = stat()
        guard stat(path + "-wal", &log) == 0, log.st_size > 0 else { return }
        throw ODataError(.cannotOpen, "'\(path)' is read-only and its write-ahead log '\(path)-wal' holds changes that "
                         + "SQLite can read only with write access to the folder (for '\(path)-shm')")
    }

    /// The error for a store that a crash left damaged.
    static func damagedError(path: String, findings: [StoreFinding]) -> ODataError {
        let shown = findings.prefix(5).map(\.message).joined(separator: "; ")
        let more = findings.count > 5 ? " (and \(findings.count - 5) more)" : ""
        return ODataError(.storage, "'\(path)' was not closed cleanly (its last user ended without closing it) and "
                          + "SQLite's quick check finds it damaged: \(shown)\(more); 'offline-odata store check' lists "
                          + "every finding")
    }
}
