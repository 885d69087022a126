internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Which tables each committed transaction of the store's write connection changed, for live
/// queries (docs/ARCHITECTURE.md, "Live queries").
///
/// SQLite's hooks on the write connection see every row it changes, whoever compiled the
/// statement (the engine's writes, a download's ingest, an upload's records, undo, migrations):
/// the update hook names the table of each row, the commit hook closes a transaction's set, the
/// rollback hook drops it. Three gaps of the update hook are closed here:
/// - `DELETE` without `WHERE` would empty a table at once (the truncate optimization) without a
///   row event: the connection's authorizer answers `SQLITE_IGNORE` to every `DELETE` statement of
///   a table of the store, which SQLite documents as "delete row by row, and do not truncate"
///   (``installAuthorizer(on:)``: not to the delete checks of `DROP`, which would skip the drop).
/// - `WITHOUT ROWID` tables have no row events: only bookkeeping tables are made so, and a read
///   that depends on one is re-run at every commit (``LiveDependencies``).
/// - Commits by other connections (another handle, another process) are not seen: the store polls
///   `PRAGMA data_version` (``StoreFile/sawOtherCommits()``).
///
/// A changed set is published only after its `COMMIT` returned ("published": made visible to
/// readers), never from the commit hook itself, which runs before the commit is durable or visible:
/// a re-run started by the hook could read the state before it. Hooks and publishing run on the
/// thread using the connection, under the store file's lock; only the listener is shared.
final class TableChangeTracker: @unchecked Sendable {
    /// Called with the tables a committed transaction (or several) changed, after the commit.
    typealias Listener = @Sendable (Set<String>) -> Void

    /// Tables changed by the open transaction (under the file's lock).
    private var pending: Set<String> = []
    /// Tables of committed transactions not yet published (under the file's lock).
    private var committed: Set<String> = []
    /// The last table name the update hook saw (its pointer and bytes), so a transaction of many
    /// rows of one table makes one `String`, not one per row.
    private var lastNamePointer: UnsafePointer<CChar>?
    private var lastName: [CChar] = []
    private let listener = Protected<Listener?>(nil)
    /// Commits published so far (for tests and diagnostics).
    let publishedCommits = Protected(0)

    /// Installs the hooks and the authorizer on `handle`, which this tracker must outlive.
    func install(on handle: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(handle, { context, _, database, table, _ in
            guard let context, let database, let table, strcmp(database, "main") == 0 else { return }
            Unmanaged<TableChangeTracker>.fromOpaque(context).takeUnretainedValue().rowChanged(in: table)
        }, context)
        sqlite3_commit_hook(handle, { context in
            guard let context else { return 0 }
            Unmanaged<TableChangeTracker>.fromOpaque(context).takeUnretainedValue().transactionCommits()
            return 0
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<TableChangeTracker>.fromOpaque(context).takeUnretainedValue().transactionRolledBack()
        }, context)
        installAuthorizer(on: handle)
    }

    /// The table a `DROP` being compiled names: SQLite checks `SQLITE_DROP_TABLE` (or `_VIEW`,
    /// `_TEMP_…`, `_VTABLE`) and then `SQLITE_DELETE` of the same table, and ignoring that delete
    /// would skip the drop. Compile-time state, on the connection's thread.
    private var droppedTable: [CChar]?

    /// The authorizer that makes every `DELETE` statement of a store table go row by row (so the
    /// update hook sees it), and leaves the rest alone: SQLite's own tables (`DROP INDEX` and
    /// `DROP TRIGGER` check a delete of `sqlite_schema`) and the table a `DROP` removes.
    func installAuthorizer(on handle: OpaquePointer) {
        sqlite3_set_authorizer(handle, { context, action, table, _, _, _ in
            guard let context, let table else { return SQLITE_OK }
            let tracker = Unmanaged<TableChangeTracker>.fromOpaque(context).takeUnretainedValue()
            switch action {
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
                tracker.droppedTable = Array(UnsafeBufferPointer(start: table, count: strlen(table) + 1))
                return SQLITE_OK
            case SQLITE_DELETE:
                if let dropped = tracker.droppedTable {
                    tracker.droppedTable = nil
                    if dropped.withUnsafeBufferPointer({ $0.baseAddress.map { strcmp($0, table) == 0 } ?? false }) { return SQLITE_OK }
                }
                return strncmp(table, "sqlite_", 7) == 0 ? SQLITE_OK : SQLITE_IGNORE
            default:
                return SQLITE_OK
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Sets (or, with nil, removes) the one listener of published changes.
    func setListener(_ newListener: Listener?) {
        listener.withLock { $0 = newListener }
    }

    private func rowChanged(in table: UnsafePointer<CChar>) {
        if table == lastNamePointer, lastName.withUnsafeBufferPointer({ $0.baseAddress.map { strcmp($0, table) == 0 } ?? false }) {
            return
        }
        let length = strlen(table)
        lastName = Array(UnsafeBufferPointer(start: table, count: length + 1))
        lastNamePointer = table
        pending.insert(String(cString: table))
    }

    /// Counts `table` as changed by the open transaction when its rows changed without a row
    /// event: a table another one replaced (`DROP TABLE` and `ALTER TABLE … RENAME`, a download's
    /// staging table swapped in).
    func noteReplaced(table: String) {
        pending.insert(table)
    }

    private func transactionCommits() {
        committed.formUnion(pending)
        pending.removeAll(keepingCapacity: true)
        lastNamePointer = nil
    }

    private func transactionRolledBack() {
        pending.removeAll(keepingCapacity: true)
        lastNamePointer = nil
    }

    /// Hands the tables of the transactions committed since the last call to the listener. Called
    /// after a `COMMIT` returned and when the file's lock is released (statements that committed
    /// on their own); does nothing inside a transaction, whose changes may still be rolled back.
    func publish(isInTransaction: Bool) {
        guard !isInTransaction, !committed.isEmpty else { return }
        let tables = committed
        committed.removeAll(keepingCapacity: true)
        publishedCommits.withLock { $0 += 1 }
        listener.withLock { $0 }?(tables)
    }
}
