#if canImport(Glibc)
import Glibc
#endif
internal import CSQLite

/// An open OfflineOData store file: an SQLite database in WAL mode with a format version.
///
/// Opening makes the file when nothing is at the path (whole or not at all: ``StoreCreation``),
/// migrates an older store, and refuses anything that is not a store (an empty file, another
/// SQLite database, a file of another kind, a newer format): a store is never made over a file
/// that is there, unless the caller accepts an empty one. A write-protected file, or one in a
/// write-protected folder, opens for reads; writes then fail with "read-only".
/// One write connection, serialized by a lock, and a pool of read connections that run beside it
/// (``ReadConnectionPool``), so a `StoreFile` may be used from any thread and reads do not wait
/// for a download's transaction.
@_spi(Tool) public final class StoreFile: @unchecked Sendable {
    /// The path the store was opened with.
    package let path: String
    /// The database file's absolute path as SQLite resolved it; nil for an in-memory store.
    /// Names the file's sidecars that are not SQLite's own (``UploadLock``).
    let databaseFilePath: String?
    /// Whether the store opened for reads only (the file or its folder is write-protected).
    package let isReadOnly: Bool
    /// What SQLite's quick check found when the store opened after its last user ended without
    /// closing it (a crash, kill -9): nil after a clean close, empty when the check found nothing.
    /// A damaged store does not open (the check's findings are the error).
    @_spi(Tool) public let recoveryFindings: [StoreFinding]?
    /// Serializes the uses of the write connection. Recursive: a group of local writes holds it
    /// for its one transaction while each write takes it again (see ``SQLiteConnection/transaction(_:)``).
    private let lock = Lock(recursive: true)
    /// Guarded by `lock`; nil once closed.
    private var connection: SQLiteConnection?
    /// The reading layer's state for `connection`, when reads share it (in-memory databases).
    private var writerAttachment: AnyObject?
    /// Nil for an in-memory database, which other connections cannot see: its reads take the lock.
    private let readPool: ReadConnectionPool?
    /// The key of an encrypted store, released (and wiped by the VFS) when the store closes;
    /// guarded by `lock` (``rekey(to:)`` replaces it).
    private var currentCipher: CipherKeyHandle?
    /// The key handle connections of this file open with now.
    var cipher: CipherKeyHandle? { lock.withLock { currentCipher } }
    /// Whether the file is encrypted (docs/ENCRYPTION.md).
    @_spi(Tool) public var isEncrypted: Bool { cipher != nil }
    /// The one listener of the write connection's commits (``setChangeListener(_:)``), kept here
    /// so that a connection opened again by ``rekey(to:)`` tells it too. Guarded by `lock`.
    private var changeListener: TableChangeTracker.Listener?

    /// Opens the store at `path`, creating it if there is no file there.
    ///
    /// - Throws: ``ODataError`` with ``ODataError/Code/misuse`` for an empty path,
    ///   ``ODataError/Code/cannotOpen`` when the path cannot be opened or created, and
    ///   ``ODataError/Code/notAStore`` when the file is not an OfflineOData store.
    @_spi(Tool) public convenience init(path: String) throws(ODataError) {
        try self.init(path: path, acceptsEmptyFile: false)
    }

    /// Opens the store at `path`, creating it if there is no file there; with `acceptsEmptyFile`,
    /// an empty file (0 bytes, or an SQLite database without tables) there becomes a new store too.
    ///
    /// - Throws: as ``init(path:)``; ``ODataError/Code/notAStore`` names an empty file when it is
    ///   not accepted, ``ODataError/Code/storage`` a store damaged by a crash.
    @_spi(Tool) public convenience init(path: String, acceptsEmptyFile: Bool) throws(ODataError) {
        try self.init(path: path, acceptsEmptyFile: acceptsEmptyFile, key: nil)
    }

    /// Opens (or makes) the store at `path` as ``init(path:acceptsEmptyFile:)`` does; with `key`,
    /// the file is an encrypted store (a new one is made encrypted).
    ///
    /// - Throws: as ``init(path:acceptsEmptyFile:)``; ``ODataError/Code/key`` for a wrong or
    ///   missing key, or a key given for a plain store (the file is not changed).
    @_spi(Tool) public init(path: String, acceptsEmptyFile: Bool, key: StoreKey?) throws(ODataError) {
        guard !path.isEmpty else { throw ODataError(.misuse, "the store path is empty") }
        guard !path.utf8.contains(0) else { throw ODataError(.misuse, "the store path contains a NUL character") }
        let inMemory = Self.isInMemory(path)
        #if DEBUG
        let key = key ?? (inMemory ? nil : TestEncryption.key(for: path))
        #endif
        var cipher: CipherKeyHandle?
        if inMemory {
            if key != nil { throw ODataError(.misuse, "an in-memory store is never written to disk: it takes no key") }
        } else {
            let made = try StoreCreation.makeIfAbsent(path: path, acceptsEmptyFile: acceptsEmptyFile, key: key)
            if let made { cipher = made } else { cipher = try StoreCipher.handle(for: path, key: key) }
        }
        let leftOpen = !inMemory && StoreRecovery.wasLeftOpen(path: path)
        var access: SQLiteConnection.Access = inMemory ? .create : .readWrite
        let db: SQLiteConnection
        do {
            // An in-memory database is always new: it is the store to make.
            db = try Self.openPrepared(path: path, access: access, acceptsEmptyDatabase: acceptsEmptyFile || inMemory,
                                       cipher: cipher)
        } catch where !inMemory && error.code != .notAStore && StoreRecovery.isWriteProtected(path: path) {
            // SQLite needs a writable folder for the WAL's shared-memory file; without one, the
            // store is read as an unchanging file.
            try StoreRecovery.requireNoPendingLog(path: path)
            access = .immutable
            db = try Self.openPrepared(path: path, access: access, acceptsEmptyDatabase: false, cipher: cipher)
        }
        if leftOpen {
            let findings: [StoreFinding]
            do throws(ODataError) {
                findings = try SQLiteCheck.sqliteFindings(on: db, quick: true)
            } catch {
                db.close()
                throw error
            }
            guard findings.isEmpty else {
                db.close()
                throw StoreRecovery.damagedError(path: path, findings: findings)
            }
            recoveryFindings = findings
        } else {
            recoveryFindings = nil
        }
        self.path = path
        databaseFilePath = db.databaseFilePath
        isReadOnly = db.isReadOnly
        self.connection = db
        currentCipher = cipher
        // Every write of this store goes through this connection: its hooks tell live queries
        // what each commit changed.
        if !db.isReadOnly { db.trackTableChanges() }
        readPool = inMemory ? nil : ReadConnectionPool(path: path, access: access == .immutable ? .immutable : .readWrite,
                                                       cipher: cipher)
    }

    /// Opens `path` and checks it is a store (migrating an older one); closed again on failure.
    private static func openPrepared(path: String, access: SQLiteConnection.Access, acceptsEmptyDatabase: Bool,
                                     cipher: CipherKeyHandle?) throws(ODataError) -> SQLiteConnection {
        let db = try SQLiteConnection(path: path, access: access, cipher: cipher)
        do throws(ODataError) {
            try prepare(db, acceptsEmptyDatabase: acceptsEmptyDatabase)
        } catch {
            db.close()
            throw error
        }
        return db
    }

    private static func isInMemory(_ path: String) -> Bool {
        path == ":memory:"
    }

    /// Refuses writes to a store opened for reads only, with a clear message.
    func requireWritable() throws(ODataError) {
        if isReadOnly { throw SQLiteConnection.readOnlyError(path) }
    }

    /// The store file's format version (``StoreFormat/currentVersion`` once opened).
    @_spi(Tool) public func formatVersion() throws(ODataError) -> Int {
        try withConnection { db throws(ODataError) in
            guard let text = try db.scalarText("SELECT value FROM ood_store_info WHERE key = ?1", [.text("format_version")]),
                  let version = Int(text)
            else { throw ODataError(.notAStore, "the store has no format version") }
            return version
        }
    }

    /// The journal mode SQLite reports (`wal` for a file store).
    @_spi(Tool) public func journalMode() throws(ODataError) -> String {
        try withConnection { db throws(ODataError) in try db.scalarText("PRAGMA journal_mode") ?? "" }
    }

    /// The defining requests, in the order they were given.
    package func definingRequests() throws(ODataError) -> [DefiningRequest] {
        try withReadConnection { db, _ throws(ODataError) in try DefiningRequestTable.all(in: db) }
    }

    /// The interrupted downloads whose pages are kept for resuming (``DownloadResumeTable/kept(in:)``).
    package func keptDownloads() throws(ODataError) -> [KeptDownload] {
        try withReadConnection { db, _ throws(ODataError) in try DownloadResumeTable.kept(in: db) }
    }

    /// Replaces the defining requests. A request kept under the same name and URL keeps its
    /// download state; names must be unique and URLs non-empty.
    package func setDefiningRequests(_ requests: [DefiningRequest]) throws(ODataError) {
        try withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in try DefiningRequestTable.replace(with: requests, in: db) }
        }
    }

    /// The requests waiting to be uploaded, in upload order.
    @_spi(Tool) public func queuedRequests() throws(ODataError) -> [QueuedRequest] {
        try withReadConnection { db, _ throws(ODataError) in try RequestQueueTable.all(in: db) }
    }

    /// The entity set of each queued request that has one, by id (no bodies read).
    package func queuedEntitySetsByID() throws(ODataError) -> [Int64: String] {
        try withReadConnection { db, _ throws(ODataError) in try RequestQueueTable.entitySetsByID(in: db) }
    }

    /// The ids in the error archive (no bodies read).
    package func archivedRequestIDs() throws(ODataError) -> Set<Int64> {
        try withReadConnection { db, _ throws(ODataError) in try RequestQueueTable.archivedIDs(in: db) }
    }

    /// The requests the service refused, with its answers.
    @_spi(Tool) public func errorArchive() throws(ODataError) -> [ArchivedRequest] {
        try withReadConnection { db, _ throws(ODataError) in try RequestQueueTable.archived(in: db) }
    }

    /// Closes the store. Later calls throw ``ODataError/Code/misuse``; closing twice is harmless.
    @_spi(Tool) public func close() {
        let key = lock.withLock { () -> CipherKeyHandle? in
            connection?.close()
            connection = nil
            writerAttachment = nil
            return currentCipher
        }
        readPool?.close()
        key?.release()
    }

    /// Changes the key of this open store (to or from none as well): the writes and reads running
    /// now end first and those issued meanwhile wait; every connection is closed, the file is
    /// rekeyed as a closed one is (``StoreRekey``: kill -9 safe, the old key until the rename, the
    /// new one after), and the connections open again through the new key. On failure the store
    /// goes on with its old key, the file unchanged. Not for an in-memory or read-only store.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for a plain store given no key, an in-memory or
    ///   closed store; ``ODataError/Code/storage`` for a read-only file; ``ODataError/Code/busy`` when another handle
    ///   or process has the file open (nothing changed).
    func rekey(to newKey: StoreKey?) throws(ODataError) {
        guard let readPool else { throw ODataError(.misuse, "an in-memory store is never written to disk: it takes no key") }
        try requireWritable()
        try lock.withLock { () throws(ODataError) in
            guard let old = connection else { throw ODataError(.misuse, "the store is closed") }
            guard currentCipher != nil || newKey != nil else {
                throw ODataError(.misuse, "rekey needs a key to change from or to: the store stays as it is")
            }
            guard !old.isInTransaction else { throw ODataError(.busy, "a transaction is open on the store: rekey after it") }
            readPool.pause()
            old.close()
            connection = nil
            var newCipher: CipherKeyHandle?
            var failure: ODataError?
            do throws(ODataError) {
                newCipher = try StoreRekey.rekey(path: path, through: currentCipher, to: newKey)
            } catch {
                failure = error
                newCipher = currentCipher
            }
            // Open again, through the new key (or the old one, after a failure: the file is as it was).
            let reopened: SQLiteConnection
            do throws(ODataError) {
                reopened = try Self.openPrepared(path: path, access: .readWrite, acceptsEmptyDatabase: false, cipher: newCipher)
            } catch {
                readPool.resume(cipher: newCipher)
                throw failure ?? error
            }
            reopened.trackTableChanges()
            reopened.changeTracker?.setListener(changeListener)
            connection = reopened
            lastDataVersion = try? reopened.scalarInt("PRAGMA data_version")
            if failure == nil, let replaced = currentCipher, replaced !== newCipher { replaced.release() }
            currentCipher = newCipher
            readPool.resume(cipher: newCipher)
            if let failure { throw failure }
        }
    }

    /// Runs the read `body` with a read connection, inside one read transaction, beside other
    /// reads and beside the write connection's transaction. `attachment` is the caller's state
    /// for that connection (kept with it between reads). Without `snapshot`, for a read of one
    /// statement, no transaction is opened around it (see ``ReadConnectionPool/withSlot(snapshot:_:)``).
    func withReadConnection<T>(snapshot: Bool = true,
                               _ body: (SQLiteConnection, inout AnyObject?) throws(ODataError) -> T) throws(ODataError) -> T {
        guard let readPool else {
            return try withConnection { db throws(ODataError) in try body(db, &writerAttachment) }
        }
        return try readPool.withSlot(snapshot: snapshot) { slot throws(ODataError) in try body(slot.connection, &slot.attachment) }
    }

    /// Drops what readers attached to their connections (after a change they depend on).
    func invalidateReadAttachments() {
        readPool?.invalidateAttachments()
        lock.withLock { writerAttachment = nil }
    }

    /// Runs `body` with the connection, serialized with every other use of this store.
    /// Changes that statements committed on their own (outside a transaction) are published as
    /// the lock is released.
    func withConnection<T>(_ body: (SQLiteConnection) throws(ODataError) -> T) throws(ODataError) -> T {
        try lock.withLock { () throws(ODataError) -> T in
            guard let connection else { throw ODataError(.misuse, "the store is closed") }
            defer { connection.publishCommittedChanges() }
            return try body(connection)
        }
    }

    // MARK: - Changes, for live queries

    /// The last `PRAGMA data_version` the write connection answered (under `lock`).
    private var lastDataVersion: Int64?

    /// Sets the one listener of the tables each committed transaction of this store's write
    /// connection changed (``TableChangeTracker``); nil removes it.
    func setChangeListener(_ listener: TableChangeTracker.Listener?) {
        lock.withLock { () -> TableChangeTracker? in
            changeListener = listener
            return connection?.changeTracker
        }?.setListener(listener)
    }

    /// How many commits of the write connection were published to the listener.
    var publishedCommitCount: Int {
        lock.withLock { connection?.changeTracker }?.publishedCommits.withLock { $0 } ?? 0
    }

    /// Takes the value ``sawOtherCommits()`` compares with first, waiting for the write connection
    /// if it is busy: commits of others after this call are seen.
    func beginWatchingOtherCommits() {
        guard readPool != nil else { return }
        lock.withLock {
            guard let connection, let version = try? connection.scalarInt("PRAGMA data_version") else { return }
            lastDataVersion = version
        }
    }

    /// Whether another connection (another handle on the file, another process) committed since
    /// the last call: `PRAGMA data_version` of the write connection changes only for commits of
    /// others. Nil when it cannot tell now: the write connection is busy (its transaction keeps
    /// others from committing meanwhile; the next call tells), the store is closed or in memory.
    /// The first call answers true (nothing to compare with: whatever was read before may be older).
    func sawOtherCommits() -> Bool? {
        guard readPool != nil else { return nil }
        let answer: Bool?? = lock.tryWithLock { () -> Bool? in
            guard let connection, !connection.isInTransaction,
                  let version = try? connection.scalarInt("PRAGMA data_version") else { return nil }
            defer { lastDataVersion = version }
            guard let lastDataVersion else { return true }
            return version != lastDataVersion
        }
        return answer ?? nil
    }

    // MARK: - Opening

    /// Checks that `db` is a store (or, with `acceptsEmptyDatabase`, an empty database to make
    /// one), then migrates it.
    static func prepare(_ db: SQLiteConnection, acceptsEmptyDatabase: Bool) throws(ODataError) {
        let applicationID: Int64
        let objectCount: Int64
        do {
            // The first read of the file: a file that is not SQLite fails here with SQLITE_NOTADB.
            applicationID = try db.scalarInt("PRAGMA application_id") ?? 0
            objectCount = try db.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        } catch where error.code == .notAStore {
            throw notAStore(db.path, "it is not an SQLite database")
        }
        if applicationID != StoreFormat.applicationID {
            guard applicationID == 0, objectCount == 0 else {
                throw notAStore(db.path, "it is an SQLite database of another application")
            }
            guard acceptsEmptyDatabase else {
                throw notAStore(db.path, "it is an empty SQLite database (no tables); " + StoreCreation.acceptanceHint)
            }
        }
        if db.isReadOnly {
            try checkReadOnly(db)
            return
        }
        // A new file takes 16 KB pages (SQLite's default is 4 KB): a download's commit and its
        // checkpoint write a quarter of the WAL frames and system calls, and B-trees split a
        // quarter as often. Only an empty file can change it (it must precede WAL); older stores
        // keep theirs.
        if applicationID == 0, objectCount == 0 {
            try db.execute("PRAGMA page_size = 16384")
            // An encrypted store's nonce and tag live in bytes every page leaves unused.
            if db.isEncrypted { try db.reserveBytesPerPage(StoreCipher.reserveBytes) }
        }
        var wanted = "WAL"
        #if DEBUG
        wanted = TestEncryption.journalMode ?? wanted
        #endif
        let mode = try db.scalarText("PRAGMA journal_mode = " + wanted) ?? ""
        // In-memory databases cannot use WAL; every file store does.
        if mode != wanted.lowercased(), mode != "memory" {
            throw ODataError(.storage, "cannot switch '\(db.path)' to WAL journal mode (got '\(mode)')")
        }
        // Durable commits: every committed change (the request queue above all) survives a crash.
        try db.execute("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        // A download writes a defining request in one transaction: with SQLite's default 2 MB
        // cache, pages spill to the WAL mid-transaction and are written again when changed again.
        // 16 MB keeps a typical set's hot pages; memory stays bounded for any size.
        try db.execute("PRAGMA cache_size = -16384")
        try migrate(db, isNew: applicationID == 0)
    }

    /// A store opened for reads only is used as it is: it must be of this engine's format.
    private static func checkReadOnly(_ db: SQLiteConnection) throws(ODataError) {
        guard let text = try storedFormatVersion(db),
              let version = Int(text)
        else { throw notAStore(db.path, "its format version is missing") }
        guard version <= StoreFormat.currentVersion else {
            throw notAStore(db.path, "its format version \(version) is newer than this engine's (\(StoreFormat.currentVersion))")
        }
        guard version == StoreFormat.currentVersion else {
            throw ODataError(.storage, "'\(db.path)' is read-only and of format \(version): bringing it to format "
                             + "\(StoreFormat.currentVersion) needs write access")
        }
        try db.execute("PRAGMA foreign_keys = ON; PRAGMA cache_size = -16384")
    }

    private static func migrate(_ db: SQLiteConnection, isNew: Bool) throws(ODataError) {
        var version = 0
        if !isNew {
            guard let text = try storedFormatVersion(db),
                  let stored = Int(text)
            else { throw notAStore(db.path, "its format version is missing") }
            version = stored
        }
        guard version <= StoreFormat.currentVersion else {
            throw notAStore(db.path, "its format version \(version) is newer than this engine's (\(StoreFormat.currentVersion))")
        }
        guard version < StoreFormat.currentVersion else { return }
        try db.transaction { () throws(ODataError) in
            for step in version..<StoreFormat.currentVersion {
                try db.execute(StoreFormat.migrations[step])
            }
            try db.prepare("INSERT OR REPLACE INTO ood_store_info (key, value) VALUES ('format_version', ?1)")
                .run([.text(String(StoreFormat.currentVersion))])
            try db.execute("PRAGMA application_id = \(StoreFormat.applicationID)")
        }
    }

    /// The stored format version; nil when the table or row is missing. A page that fails its
    /// authentication is that error, not a missing version.
    private static func storedFormatVersion(_ db: SQLiteConnection) throws(ODataError) -> String? {
        do {
            return try db.scalarText("SELECT value FROM ood_store_info WHERE key = 'format_version'")
        } catch where error.isAuthenticationFailure {
            throw error
        } catch {
            return nil
        }
    }

    private static func notAStore(_ path: String, _ reason: String) -> ODataError {
        ODataError(.notAStore, "'\(path)' is not an OfflineOData store: \(reason)")
    }
}
