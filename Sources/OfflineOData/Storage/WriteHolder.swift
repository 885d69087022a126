#if canImport(Glibc)
import Glibc
#endif

/// Who holds a store's write transaction for long, so that a writer who waited for it in vain can
/// say what holds the store ("a download of defining request 'Agencies' in process 4711") instead
/// of SQLite's bare "database is locked".
///
/// The record is a sidecar file, `<store file>-writer`, holding the holder's start time and
/// description under an exclusive `flock` for as long as the transaction runs. A record is
/// believed only while its lock is held: the kernel drops the lock when the holder ends or dies
/// (even by SIGKILL), so a stale record left by a killed process is never reported. Recording is
/// best effort (a read-only folder, say): it only improves an error message.
final class WriteHolder {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { release() }

    /// The record file of the store file at `databaseFilePath`.
    static func recordPath(forStoreFile databaseFilePath: String) -> String { databaseFilePath + "-writer" }

    /// Records that this process holds the store's write transaction for `activity`; nil when
    /// the record cannot be made (an in-memory store, a read-only folder, another live record).
    static func record(_ activity: String, databaseFilePath: String?) -> WriteHolder? {
        guard let databaseFilePath else { return nil }
        let fd = open(recordPath(forStoreFile: databaseFilePath), O_CREAT | O_RDWR | O_CLOEXEC, mode_t(0o600))
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        let text = "\(Int64(monotonicSeconds() * 1000))\n\(activity) in process \(getpid())"
        _ = ftruncate(fd, 0)
        _ = text.utf8CString.withUnsafeBufferPointer { buffer in
            pwrite(fd, buffer.baseAddress, max(buffer.count - 1, 0), 0)
        }
        return WriteHolder(descriptor: fd)
    }

    /// Ends the record: emptied and unlocked.
    func release() {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        close(descriptor)
        descriptor = -1
    }

    /// What holds the store's write transaction now, with how long it has, or nil when no live
    /// holder is recorded (none, or its process is gone).
    static func current(databaseFilePath: String) -> String? {
        let fd = open(recordPath(forStoreFile: databaseFilePath), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // The lock taken means nobody holds it: whatever the file says is stale.
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return nil }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        let activity = String(text[text.index(after: newline)...])
        guard let startMillis = Int64(text[..<newline]) else { return activity }
        let seconds = max(0, monotonicSeconds() - Double(startMillis) / 1000)
        return "\(activity), for \(formatSeconds(seconds)) so far"
    }

    /// The error for a write that waited `waited` seconds for the write lock and did not get it.
    static func busyError(storePath: String, databaseFilePath: String?, waited: Double) -> ODataError {
        let holder = databaseFilePath.flatMap { current(databaseFilePath: $0) }
        let who = holder.map { "held by \($0)" } ?? "held by another store handle or process with a write transaction open"
        return ODataError(.busy, "the store '\(storePath)' is locked for writing, \(who); "
                          + "waited \(formatSeconds(waited)) for it (database is locked)")
    }

    /// Seconds on the monotonic clock, which all processes of the machine share.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
