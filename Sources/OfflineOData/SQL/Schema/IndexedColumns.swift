/// The columns of entity-set tables that lead an index, as SQLite has them: the key's, the
/// foreign keys', declared and automatic indexes' alike (issue 23). The translator asks it
/// whether a navigation filter in a paged read can be found through indexes
/// (``SQLTranslator/semiJoinDrives(_:_:)``), which decides between a semi-join and the
/// correlated form that stops at the page's end.
///
/// Read from SQLite's own schema rather than `ood_index`, so the key and foreign-key indexes
/// count too; partial indexes (`_ood_change`) do not, as they hold only some rows. A set of
/// indexed columns belongs to one schema version (``version``): making an index changes it.
struct IndexedColumns: Sendable, Equatable {
    /// `PRAGMA schema_version` when the set was read; nil for ``none``.
    let version: Int64?
    /// Table SQL name and column SQL name, NUL-separated (neither holds a NUL).
    private let leading: Set<String>

    /// No index known: a paged navigation filter keeps the correlated form.
    static let none = IndexedColumns(version: nil, leading: [])

    private init(version: Int64?, leading: Set<String>) {
        self.version = version
        self.leading = leading
    }

    /// Whether `column` of `table` is the first column of a full index.
    func leads(_ table: EntitySetTable, _ column: StoredColumn) -> Bool {
        leading.contains(table.name + "\u{0}" + column.sqlName)
    }

    /// The schema version of the database now; a set read at another version is out of date.
    static func schemaVersion(on db: SQLiteConnection) throws(ODataError) -> Int64 {
        try db.scalarInt("PRAGMA schema_version") ?? 0
    }

    /// The leading columns of every full index on an entity-set table (`es/...`) in `db`.
    static func read(on db: SQLiteConnection) throws(ODataError) -> IndexedColumns {
        let version = try schemaVersion(on: db)
        let statement = try db.prepare(
            "SELECT m.name, i.name FROM sqlite_schema AS m JOIN pragma_index_list(m.name) AS l JOIN pragma_index_info(l.name) AS i"
            + " WHERE m.type = 'table' AND m.name LIKE 'es/%' AND l.partial = 0 AND i.seqno = 0")
        try statement.bind([])
        var leading: Set<String> = []
        while try statement.step() {
            guard let table = statement.text(at: 0), let column = statement.text(at: 1) else { continue }
            leading.insert(table + "\u{0}" + column)
        }
        return IndexedColumns(version: version, leading: leading)
    }
}
