#if canImport(Glibc)
import Glibc
#endif

/// One upload at a time per store file, across store handles and processes.
///
/// An exclusive, non-blocking `flock` on a sidecar file next to the store, `<store file>-upload.lock`
/// (made with mode 0600 when missing), held for the whole upload. A second upload of the same file
/// fails at once with ``ODataError/Code/busy`` and sends nothing, so no queued request goes twice.
///
/// Why this shape:
/// - `flock` locks belong to the open file description, so two handles on one file in one process
///   exclude each other as two processes do (POSIX `fcntl` locks would not: they are per process).
/// - The kernel drops the lock when its holder closes the file or dies (even by SIGKILL): a lock
///   is never left behind. The file stays: deleting a lock file races with its next user.
/// - A child forked without exec shares the open lock file, so the lock stays taken until the
///   child closes it or ends (the descriptor is close-on-exec: a child that execs lets it go).
/// - The lock is never taken on the database file itself: closing any descriptor of that file
///   would drop SQLite's own POSIX locks held by this process.
final class UploadLock {
    /// The lock file's path.
    let path: String
    /// The open lock file; -1 once released.
    private var descriptor: Int32

    /// The lock file of the store file at `databasePath`.
    static func lockPath(forStoreFile databasePath: String) -> String { databasePath + "-upload.lock" }

    /// Runs `body` holding the upload lock of `file` (nothing to lock for an in-memory store,
    /// which no other handle can see); released when `body` returns or throws.
    ///
    /// - Throws: ``ODataError/Code/busy`` when another upload of the same store file runs, in
    ///   this process or another; ``ODataError/Code/cannotOpen`` when the lock file cannot be
    ///   opened or made; the errors of `body`.
    static func holding<T>(for file: StoreFile, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        guard let databasePath = file.databaseFilePath else { return try body() }
        let lock = try UploadLock(path: lockPath(forStoreFile: databasePath))
        defer { lock.release() }
        return try body()
    }

    /// Takes the lock at `path`, making the file when it is missing.
    ///
    /// - Throws: ``ODataError/Code/busy`` when another open file holds it;
    ///   ``ODataError/Code/cannotOpen`` when the file cannot be opened or made (a read-only
    ///   folder); ``ODataError/Code/storage`` when the lock cannot be taken for another reason.
    init(path: String) throws(ODataError) {
        self.path = path
        var fd: Int32
        repeat {
            fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, mode_t(0o600))
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let reason = Self.describe(errno)
            throw ODataError(.cannotOpen, "cannot open or make the upload lock file '\(path)': \(reason)")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK || code == EAGAIN {
                throw ODataError(.busy, "another upload of this store is running (in this process or another); "
                                 + "try again when it has finished (lock file '\(path)')")
            }
            throw ODataError(.storage, "cannot lock the upload lock file '\(path)': \(Self.describe(code))")
        }
        descriptor = fd
    }

    /// Releases the lock (closing the file); harmless when called twice.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
