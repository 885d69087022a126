#if canImport(Glibc)
import Glibc
#endif

/// Changes the key of a closed store file: to another key, from no key (encrypting a plain store)
/// or to no key (decrypting it). docs/ENCRYPTION.md, "Converting and rekeying".
///
/// The store is copied with `VACUUM INTO` to `<path>.rekeying` through the new key (a new salt, so
/// a new data key), synced and checked; the old file's WAL is folded in; then the copy is renamed
/// over the store. A process killed at any moment leaves a store that opens with exactly one of the
/// two keys: the old one until the rename, the new one after it. Everything in the database comes
/// along: the queue, the archive, resume points, indexes.
///
/// Another process is kept out from the first read to the rename: the old file is held in SQLite's
/// exclusive locking mode. A store open elsewhere holds a shared lock on its file (every WAL
/// connection does, for as long as it is open), so the rekey fails at once with `busy`; a process
/// that opens the old file meanwhile waits for the lock, and when it gets it the old file is empty
/// (truncated after the rename), so its open fails instead of writing into a file nobody reads.
enum StoreRekey {
    /// Rekeys the store at `path` from `oldKey` to `newKey` (either nil for a plain file).
    ///
    /// - Throws: ``ODataError/Code/key`` when `oldKey` does not open the store,
    ///   ``ODataError/Code/misuse`` when both are nil, ``ODataError/Code/busy`` when another
    ///   connection has the store open (nothing is changed then).
    static func rekey(path: String, from oldKey: StoreKey?, to newKey: StoreKey?) throws(ODataError) {
        guard oldKey != nil || newKey != nil else {
            throw ODataError(.misuse, "rekey needs a key to change from or to: the store stays as it is")
        }
        guard !path.isEmpty, access(path, F_OK) == 0 else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
        let oldHandle = try StoreCipher.handle(for: path, key: oldKey)
        defer { oldHandle?.release() }
        let newHandle = try rekey(path: path, through: oldHandle, to: newKey)
        newHandle?.release()
    }

    /// Rekeys the store at `path`, read through `oldHandle` (nil for a plain file), to `newKey`:
    /// as ``rekey(path:from:to:)``, for a store whose own connections are closed meanwhile
    /// (``StoreFile/rekey(to:)``). Returns the handle of the new key (nil for a plain file now),
    /// the caller's to release.
    static func rekey(path: String, through oldHandle: CipherKeyHandle?, to newKey: StoreKey?) throws(ODataError) -> CipherKeyHandle? {
        let temporary = path + ".rekeying"
        removeLeftovers(of: temporary)
        let newHandle: CipherKeyHandle? = if let newKey { try StoreCipher.newStoreHandle(key: newKey) } else { nil }
        do throws(ODataError) {
            try replace(path: path, temporary: temporary, through: oldHandle, with: newHandle)
        } catch {
            newHandle?.release()
            throw error
        }
        return newHandle
    }

    /// Copies the store through `newHandle` and puts the copy in place (the steps of ``rekey(path:from:to:)``).
    private static func replace(path: String, temporary: String, through oldHandle: CipherKeyHandle?,
                                with newHandle: CipherKeyHandle?) throws(ODataError) {
        let source = try SQLiteConnection(path: path, access: .readWrite, cipher: oldHandle, allowsURIs: true)
        var oldFile: Int32 = -1
        defer {
            // After the connection's close: closing another descriptor of the file while SQLite
            // holds its lock would drop that lock (POSIX record locks are per process and file).
            source.close()
            if oldFile >= 0 { close(oldFile) }
        }
        do throws(ODataError) {
            try holdAlone(source, path: path)
            try StoreFile.prepare(source, acceptsEmptyDatabase: false)
            try copy(source, to: temporary, through: newHandle)
            try syncFile(temporary)
            try check(temporary, through: newHandle)
            TestStopPoint.rekeyCopied.reached()
            // The WAL folded into the old file (the copy's checkpoint left it empty) and its files
            // removed while the file is held alone, so no log of the old file is beside the copy
            // once it takes the path. The connection keeps its WAL on close (it would otherwise
            // remove `<path>-wal` by name then: by that time the new file's log).
            try source.keepWALOnClose()
            guard try source.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)") == 0 else {
                throw ODataError(.busy, "'\(path)' is open elsewhere (its log could not be folded in): close it everywhere, then rekey")
            }
            for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
            oldFile = open(path, O_RDWR | O_CLOEXEC)
            TestStopPoint.rekeyFolded.reached()
        } catch {
            removeLeftovers(of: temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = StoreCreation.describe(errno)
            removeLeftovers(of: temporary)
            throw ODataError(.storage, "cannot put the rekeyed copy in place of '\(path)': \(reason)")
        }
        // The old file, now nameless, emptied: a process that opened it before the rename and
        // waited for the lock finds no store there, rather than writing where nobody reads.
        if oldFile >= 0 { _ = ftruncate(oldFile, 0) }
        TestStopPoint.rekeyRenamed.reached()
        syncFolder(of: path)
    }

    /// Takes the old file for this connection alone (SQLite's exclusive locking mode, kept until
    /// it closes); `busy` when another connection has it open.
    private static func holdAlone(_ source: SQLiteConnection, path: String) throws(ODataError) {
        do throws(ODataError) {
            _ = try source.scalarText("PRAGMA locking_mode = EXCLUSIVE")
            try source.execute("BEGIN EXCLUSIVE; COMMIT")
        } catch where error.code == .busy {
            throw ODataError(.busy, "'\(path)' is open elsewhere: close it everywhere, then rekey")
        }
    }

    /// `VACUUM INTO` the temporary file, written through `handle` (or the default VFS for a plain copy).
    private static func copy(_ source: SQLiteConnection, to temporary: String, through handle: CipherKeyHandle?) throws(ODataError) {
        _ = try source.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
        let target: String
        if let handle {
            // The copy's pages leave room for the nonce and tag (a plain source has none).
            try source.reserveBytesPerPage(StoreCipher.reserveBytes)
            target = "file:" + SQLiteConnection.uriEscaped(temporary) + "?vfs=\(StoreCipher.vfsName)&ood_key=\(handle.id)"
        } else {
            target = "file:" + SQLiteConnection.uriEscaped(temporary) + "?vfs=\(StoreCipher.defaultVFSName)"
        }
        try source.prepare("VACUUM INTO ?1").run([.text(target)])
    }

    /// The copy opens through `handle` and SQLite's quick check finds nothing.
    private static func check(_ temporary: String, through handle: CipherKeyHandle?) throws(ODataError) {
        let copy = try SQLiteConnection(path: temporary, access: .readWrite, cipher: handle)
        defer { copy.close() }
        let result = try copy.scalarText("PRAGMA quick_check")
        guard result == "ok" else { throw ODataError(.storage, "the rekeyed copy failed its check: \(result ?? "")") }
        guard try copy.scalarInt("PRAGMA application_id") == StoreFormat.applicationID else {
            throw ODataError(.storage, "the rekeyed copy is not a store")
        }
    }

    private static func removeLeftovers(of temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }

    private static func syncFile(_ path: String) throws(ODataError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ODataError(.storage, "cannot sync '\(path)': \(StoreCreation.describe(errno))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ODataError(.storage, "cannot sync '\(path)': \(StoreCreation.describe(errno))") }
    }

    private static func syncFolder(of path: String) {
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
