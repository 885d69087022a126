#if canImport(Glibc)
import Glibc
#endif

/// Makes a new store file whole or not at all, and never over a file that is there.
///
/// The store is built beside its path, in `<path>.creating` (mode 0600, under an exclusive
/// `flock` so two processes never build in the same file), closed cleanly (SQLite folds its WAL
/// into the file and removes it), synced, then linked to the path, which fails if a file
/// appeared there meanwhile. A process killed at any moment leaves either no file at the path or
/// a complete store (whose model a later open adds: a store without one is recognised by its
/// `application_id` and format tables); at worst a stale `<path>.creating`, which the next
/// creation reuses. So a crash in the first open never leaves a file that cannot be opened, and
/// an empty file at the path is never the engine's: it is refused unless the caller accepts it.
enum StoreCreation {
    /// What to do about an empty file, for the error messages of every entry point.
    static let acceptanceHint = "a new store is made only where no file is: remove it, or accept the empty file "
        + "(Swift acceptsEmptyFile, C ood_options_set_accept_empty_file, Python accept_empty_file=True, "
        + "tool --accept-empty-file)"

    /// Makes the store at `path` when nothing is there; with `acceptsEmptyFile`, also when the
    /// file there is empty (0 bytes; it keeps its mode). Does nothing when a non-empty file is
    /// there: opening it checks it is a store.
    ///
    /// - Throws: ``ODataError/Code/notAStore`` for an empty file not accepted,
    ///   ``ODataError/Code/cannotOpen`` for a folder or a path that cannot be made,
    ///   ``ODataError/Code/busy`` when another process is making the same store.
    /// With `key`, the new store is encrypted; the key's handle is returned when this call's file
    /// became the store (nil when nothing was made, or another process's store won the race).
    @discardableResult
    static func makeIfAbsent(path: String, acceptsEmptyFile: Bool, key: StoreKey? = nil) throws(ODataError) -> CipherKeyHandle? {
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw ODataError(.cannotOpen, "cannot open store file '\(path)': it is a folder")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 else { return nil }
            guard acceptsEmptyFile else {
                throw ODataError(.notAStore, "'\(path)' is not an OfflineOData store: it is an empty file (0 bytes); "
                                 + acceptanceHint)
            }
            return try build(path: path, mode: info.st_mode & 0o7777, replacing: true, key: key)
        }
        let code = errno
        guard code == ENOENT else {
            throw ODataError(.cannotOpen, "cannot open store file '\(path)': \(describe(code))")
        }
        return try build(path: path, mode: 0o600, replacing: false, key: key)
    }

    /// Builds a store in `<path>.creating`, then moves it to `path` (`replacing` an empty file,
    /// or only where no file is).
    private static func build(path: String, mode: mode_t, replacing: Bool, key: StoreKey?) throws(ODataError) -> CipherKeyHandle? {
        let temporary = path + ".creating"
        var fd: Int32
        repeat {
            fd = open(temporary, O_CREAT | O_RDWR | O_CLOEXEC, mode_t(0o600))
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            throw ODataError(.cannotOpen,
                             "cannot open store file '\(path)': cannot make it: \(describe(errno)) (making '\(temporary)')")
        }
        // Closed last: closing a descriptor of the file drops SQLite's locks on it, so only after
        // SQLite is done with it.
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw ODataError(.busy, "another process is making the store '\(path)' now; open it once that is done")
        }
        // What a killed creation left, if anything: started over.
        _ = ftruncate(fd, 0)
        unlink(temporary + "-wal")
        unlink(temporary + "-shm")
        unlink(temporary + "-journal")
        _ = fchmod(fd, mode)
        var cipher: CipherKeyHandle?
        if let key { cipher = try StoreCipher.newStoreHandle(key: key) }
        let placed: Bool
        do throws(ODataError) {
            let db = try SQLiteConnection(path: temporary, access: .readWrite, cipher: cipher)
            do throws(ODataError) {
                try StoreFile.prepare(db, acceptsEmptyDatabase: true)
            } catch {
                db.close()
                throw error
            }
            // The last connection's close folds the WAL into the file and removes it.
            db.close()
            guard fsync(fd) == 0 else { throw ODataError(.storage, "cannot sync '\(temporary)': \(describe(errno))") }
            placed = try place(temporary, at: path, replacing: replacing)
        } catch {
            unlink(temporary)
            throw error
        }
        syncFolder(of: path)
        return placed ? cipher : nil
    }

    /// Moves the built file to `path`: over it when `replacing`, else only if nothing is there
    /// (another process's new store stays, and is opened instead).
    /// Returns whether the built file is the one at `path` now.
    private static func place(_ temporary: String, at path: String, replacing: Bool) throws(ODataError) -> Bool {
        if replacing {
            guard rename(temporary, path) == 0 else {
                throw ODataError(.cannotOpen, "cannot open store file '\(path)': cannot make it: \(describe(errno))")
            }
            return true
        }
        if link(temporary, path) == 0 {
            unlink(temporary)
            return true
        }
        if errno == EEXIST {
            unlink(temporary)
            return false
        }
        // A file system without hard links: a rename, checked just before.
        let code = errno
        guard code == EPERM || code == EOPNOTSUPP, access(path, F_OK) != 0 else {
            throw ODataError(.cannotOpen, "cannot open store file '\(path)': cannot make it: \(describe(code))")
        }
        guard rename(temporary, path) == 0 else {
            throw ODataError(.cannotOpen, "cannot open store file '\(path)': cannot make it: \(describe(errno))")
        }
        return true
    }

    /// Makes the new name durable (best effort: some file systems cannot sync a folder).
    private static func syncFolder(of path: String) {
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
