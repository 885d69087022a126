internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection: the thin layer every store file sits on.
///
/// Not thread-safe by itself (it is opened `SQLITE_OPEN_NOMUTEX`); its owner serializes access.
/// Values never enter SQL text: ``Statement`` binds them.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    let path: String
    /// The key of an encrypted store file, kept as long as the connection (nil for a plain one).
    let cipher: CipherKeyHandle?

    /// How a connection opens its file.
    enum Access {
        /// Read and write (SQLite falls back to reading when the file is write-protected).
        case readWrite
        /// Read and write, making the file when it is missing.
        case create
        /// Reads only, with the file taken as unchanging: a write-ahead-log store in a folder this
        /// process cannot write, where SQLite cannot make the shared-memory file it needs.
        case immutable
    }

    /// Opens (and with `create`, creates) the database at `path`.
    ///
    /// - Throws: ``ODataError/Code/cannotOpen`` when SQLite cannot open the file.
    convenience init(path: String, create: Bool) throws(ODataError) {
        try self.init(path: path, access: create ? .create : .readWrite)
    }

    /// Opens the database at `path` as `access` says.
    ///
    /// - Throws: ``ODataError/Code/cannotOpen`` when SQLite cannot open the file.
    /// With `cipher`, the file is an encrypted store read and written through the encrypting VFS
    /// (``StoreCipher``), and temporary data stays in memory.
    /// With `allowsURIs`, SQL may name other files by URI (a rekey's `VACUUM INTO` target).
    init(path: String, access: Access, cipher: CipherKeyHandle? = nil, allowsURIs: Bool = false) throws(ODataError) {
        self.path = path
        self.cipher = cipher
        var flags = SQLITE_OPEN_NOMUTEX
        // A store path is a file's path, never an SQLite URI (`file:x?mode=memory` would "create" a
        // store that is not there). This SQLite reads a name starting `file:` as a URI whatever
        // the flags say; `./file:...` is the same file without that reading.
        var filename = path.hasPrefix("file:") ? "./" + path : path
        if allowsURIs { flags |= SQLITE_OPEN_URI }
        switch access {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .immutable:
            // The one URI the engine makes itself, from the path with every special byte escaped.
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            filename = "file:" + Self.uriEscaped(path) + "?mode=ro&immutable=1"
        }
        if let cipher {
            // The key's id, not the key: the VFS looks the key up by it.
            flags |= SQLITE_OPEN_URI
            let parameters = "vfs=\(StoreCipher.vfsName)&ood_key=\(cipher.id)"
            filename = access == .immutable ? filename + "&" + parameters : "file:" + Self.uriEscaped(path) + "?" + parameters
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(filename, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let detail = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            if cipher != nil, StoreCipher.takeAuthenticationFailure() { throw Self.authenticationError("cannot open store file", path) }
            throw ODataError(.cannotOpen, "cannot open store file '\(path)': \(detail)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        guard SQLFunctions.register(on: db) == SQLITE_OK else {
            let detail = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            handle = nil
            throw ODataError(.storage, "cannot register the store's SQL functions: \(detail)")
        }
        // Wait briefly instead of failing when another connection holds the write lock.
        sqlite3_busy_timeout(db, 5_000)
        if cipher != nil {
            // Temporary files cannot carry the store's key (the VFS refuses them): sorts, temporary
            // tables and statement journals stay in memory.
            let pragmaRC = sqlite3_exec(db, "PRAGMA temp_store = MEMORY", nil, nil, nil)
            guard pragmaRC == SQLITE_OK else {
                let failure = error(sqlite3_extended_errcode(db), "cannot open store file '\(path)'")
                sqlite3_close_v2(db)
                handle = nil
                throw failure
            }
        }
    }

    /// SQLITE_IOERR_DATA (a macro Swift does not import): the encrypting VFS's authentication failure.
    static let authenticationFailure = SQLITE_IOERR | (32 << 8)

    /// Whether the connection reads and writes an encrypted store file.
    var isEncrypted: Bool { cipher != nil }

    /// Asks SQLite to leave `count` bytes unused at the end of every page, for the encrypting VFS's
    /// nonce and tag; it takes effect on a new file or in a `VACUUM INTO` from this connection.
    func reserveBytesPerPage(_ count: Int32) throws(ODataError) {
        guard let handle else { throw ODataError(.misuse, "the store is closed") }
        var value = count
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
        guard rc == SQLITE_OK else { throw error(rc, "cannot reserve bytes per page") }
    }

    /// Keeps the WAL file when this connection closes (`SQLITE_FCNTL_PERSIST_WAL`): a rekey's
    /// old file must not remove `<path>-wal` by name once the path is the new file's.
    func keepWALOnClose() throws(ODataError) {
        guard let handle else { throw ODataError(.misuse, "the store is closed") }
        var value: Int32 = 1
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &value)
        guard rc == SQLITE_OK else { throw error(rc, "cannot keep the log on close") }
    }

    deinit { close() }

    /// `path` as the path of a `file:` URI: bytes other than unreserved characters and `/` as `%XX`.
    static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            let isPlain = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if isPlain {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                escaped += byte < 0x10 ? "%0" + hex : "%" + hex
            }
        }
        return escaped
    }

    /// Whether SQLite opened the file for reads only (the file or its folder is write-protected).
    var isReadOnly: Bool {
        guard let handle else { return false }
        return sqlite3_db_readonly(handle, "main") == 1
    }

    /// Closes the connection; statements still alive keep it as a zombie until they are finalized.
    func close() {
        statements?.removeAll()
        statements = nil
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The statements of the hot write path (a local write runs the same few each time), compiled
    /// once per connection. The cache's statements refer back to the connection; `close()` ends that.
    private var statements: StatementCache?

    /// Runs `body` with the compiled statement for `sql`, kept for the next call; the statement is
    /// reset afterwards. For SQL texts that repeat (no values in them: values are bound).
    func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws(ODataError) -> T) throws(ODataError) -> T {
        let cache: StatementCache
        if let statements {
            cache = statements
        } else {
            cache = StatementCache(capacity: 32)
            statements = cache
        }
        return try cache.with(sql, on: self, body)
    }

    /// Runs a statement without parameters or rows through the statement cache (`BEGIN` and
    /// `COMMIT` of every read, the savepoints of nested transactions): `sqlite3_exec` would
    /// compile it again each time.
    func runCached(_ sql: String) throws(ODataError) {
        try withCachedStatement(sql) { statement throws(ODataError) in try statement.run() }
    }

    /// The rowid of the most recent insert on this connection.
    var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// How many rows the most recent INSERT, UPDATE or DELETE on this connection changed.
    var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The absolute path of the main database file as SQLite resolved it (a `file:` URI's file,
    /// symbolic links followed); nil for an in-memory or temporary database.
    var databaseFilePath: String? {
        guard let handle, let name = sqlite3_db_filename(handle, "main") else { return nil }
        let path = String(cString: name)
        return path.isEmpty ? nil : path
    }

    /// The message of the most recent failure on this connection.
    var lastErrorMessage: String {
        guard let handle else { return "the connection is closed" }
        return String(cString: sqlite3_errmsg(handle))
    }

    /// The error for a failed SQLite call, with SQLite's own words.
    func error(_ rc: Int32, _ context: String) -> ODataError {
        let primary = rc & 0xff
        let code: ODataError.Code = switch primary {
        case SQLITE_NOTADB: .notAStore
        case SQLITE_CONSTRAINT: .constraint
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CANTOPEN: .cannotOpen
        default: .storage
        }
        if primary == SQLITE_READONLY { return Self.readOnlyError(path) }
        if rc == Self.authenticationFailure || (primary == SQLITE_IOERR && cipher != nil && StoreCipher.takeAuthenticationFailure()) {
            return Self.authenticationError(context, path)
        }
        var error = ODataError(code, "\(context): \(lastErrorMessage)")
        if primary == SQLITE_FULL {
            error.message = "\(context): the disk is full, or the store reached its size limit (\(lastErrorMessage))"
            error.isDiskFull = true
        }
        return error
    }

    /// The error for a page of an encrypted store that failed its authentication.
    static func authenticationError(_ context: String, _ path: String) -> ODataError {
        var error = ODataError(.storage, "\(context): a page of '\(path)' failed its authentication: the file was "
                               + "damaged or tampered with (a changed, moved or replaced page)")
        error.isAuthenticationFailure = true
        return error
    }

    /// The error for a write to a store opened for reads only.
    static func readOnlyError(_ path: String) -> ODataError {
        ODataError(.storage, "'\(path)' is read-only (the file or its folder is not writable): it answers reads, "
                   + "but writes, downloads and uploads need write access")
    }

    /// Opens a write transaction (`BEGIN IMMEDIATE`). When another connection holds the write lock
    /// past the busy timeout, the error says who holds it (``WriteHolder``) and how long it waited.
    func beginImmediate() throws(ODataError) {
        if isReadOnly { throw Self.readOnlyError(path) }
        let started = WriteHolder.monotonicSeconds()
        do {
            try execute("BEGIN IMMEDIATE")
        } catch where error.code == .busy {
            throw WriteHolder.busyError(storePath: path, databaseFilePath: databaseFilePath,
                                        waited: WriteHolder.monotonicSeconds() - started)
        }
    }

    /// Runs SQL text that has no parameters (schema statements, pragmas), all statements in it.
    func execute(_ sql: String) throws(ODataError) {
        guard let handle else { throw ODataError(.misuse, "the store is closed") }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "SQL failed") }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(ODataError) -> Statement {
        guard let handle else { throw ODataError(.misuse, "the store is closed") }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, 0, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "cannot prepare statement") }
        return Statement(stmt, connection: self)
    }

    /// Runs `body` inside one transaction: committed if it returns, rolled back if it throws.
    ///
    /// Inside a transaction already open on this connection (a group of local writes committed
    /// together), `body` runs in a savepoint instead: undone alone if it throws, made durable by
    /// the enclosing commit.
    func transaction<T>(_ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        if let handle, sqlite3_get_autocommit(handle) == 0 {
            // Compiled once: a group of local writes runs these around every write.
            try runCached("SAVEPOINT ood_nested")
            do {
                let result = try body()
                try runCached("RELEASE ood_nested")
                return result
            } catch {
                try? runCached("ROLLBACK TO ood_nested")
                try? runCached("RELEASE ood_nested")
                throw error
            }
        }
        try beginImmediate()
        do {
            let result = try body()
            try execute("COMMIT")
            publishCommittedChanges()
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// What the committed transactions of this connection changed (the store's write connection
    /// only; nil elsewhere). See ``trackTableChanges()``.
    private(set) var changeTracker: TableChangeTracker?

    /// Installs a ``TableChangeTracker`` on this connection (once).
    func trackTableChanges() {
        guard changeTracker == nil, let handle else { return }
        let tracker = TableChangeTracker()
        tracker.install(on: handle)
        changeTracker = tracker
    }

    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Hands what the transactions committed so far changed to the tracker's listener; nothing
    /// while a transaction is still open. Called after every `COMMIT` the engine runs.
    func publishCommittedChanges() {
        changeTracker?.publish(isInTransaction: isInTransaction)
    }

    /// The tables a statement of `sql` would read, as SQLite's compiler reports them to the
    /// authorizer (`SQLITE_READ` of each column): the statement is compiled, never run. Tables of
    /// subqueries, joins and `EXISTS` tests included; SQLite's own tables left out.
    func tablesRead(by sql: String) throws(ODataError) -> Set<String> {
        guard let handle else { throw ODataError(.misuse, "the store is closed") }
        final class Collected { var tables: Set<String> = [] }
        let collected = Collected()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        sqlite3_set_authorizer(handle, { context, action, table, _, database, _ in
            guard action == SQLITE_READ, let context, let table, strncmp(table, "sqlite_", 7) != 0 else { return SQLITE_OK }
            if let database, strcmp(database, "main") != 0 { return SQLITE_OK }
            Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().tables.insert(String(cString: table))
            return SQLITE_OK
        }, context)
        defer {
            // The write connection keeps its own authorizer (an in-memory store reads on it).
            if let changeTracker {
                changeTracker.installAuthorizer(on: handle)
            } else {
                sqlite3_set_authorizer(handle, nil, nil)
            }
        }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
        sqlite3_finalize(statement)
        guard rc == SQLITE_OK else { throw error(rc, "cannot prepare statement") }
        return withExtendedLifetime(collected) { collected.tables }
    }

    /// The single value of a one-row, one-column query, as text (nil for no row or NULL).
    func scalarText(_ sql: String, _ arguments: [SQLValue] = []) throws(ODataError) -> String? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// The single value of a one-row, one-column query, as an integer (nil for no row or NULL).
    func scalarInt(_ sql: String, _ arguments: [SQLValue] = []) throws(ODataError) -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.isNull(at: 0) ? nil : statement.int(at: 0)
    }
}
