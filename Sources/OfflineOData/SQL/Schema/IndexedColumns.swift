/// The columns of entity-set tables that lead an index, as SQLite has them: the key's, the
/// foreign keys', declared and automatic indexes' alike (issue 23). The translator asks it
/// whether a navigation filter in a paged read can be found through indexes
/// (``SQLTranslator/semiJoinDrives(_:_:)``), which decides between a semi-join and the
/// correlated form that stops at the page's end.
///
/// Read from SQLite's own schema rather than `ood_index`, so the key and foreign-key indexes
/// count too; partial indexes (`_ood_change`) do not, as they hold only some rows. A set of
/// indexed columns belongs to one schema version (``version``): making an index changes it.
///
/// With them, what SQLite's `ANALYZE` left in `sqlite_stat1` (issue 38): each table's row count
/// and, per leading column, the rows an index finds for one value (the stat's second figure),
/// from which the translator estimates how many rows a paged navigation filter matches. They are
/// read with the indexes, so they are those of the last schema change (the first `ANALYZE`
/// makes `sqlite_stat1`; a later one rewrites its rows without changing the schema).
struct IndexedColumns: Sendable, Equatable {
    /// `PRAGMA schema_version` when the set was read; nil for ``none``.
    let version: Int64?
    /// Table SQL name and column SQL name, NUL-separated (neither holds a NUL).
    private let leading: Set<String>
    /// Rows per value of a leading column (same keys as ``leading``), where `sqlite_stat1` has them.
    private let perValue: [String: Double]
    /// Rows of a table (SQL name), where `sqlite_stat1` has them.
    private let tableRows: [String: Double]

    /// No index known: a paged navigation filter keeps the correlated form.
    static let none = IndexedColumns(version: nil, leading: [], perValue: [:], tableRows: [:])

    private init(version: Int64?, leading: Set<String>, perValue: [String: Double], tableRows: [String: Double]) {
        self.version = version
        self.leading = leading
        self.perValue = perValue
        self.tableRows = tableRows
    }

    /// The rows an index on `column` of `table` finds for one value, by `sqlite_stat1`; nil
    /// where the column leads no index or the table was never analysed.
    func rowsPerValue(_ table: EntitySetTable, _ column: StoredColumn) -> Double? {
        perValue[table.name + "\u{0}" + column.sqlName]
    }

    /// The rows of `table` by `sqlite_stat1`; nil where it was never analysed.
    func rows(_ table: EntitySetTable) -> Double? {
        tableRows[table.name]
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
            "SELECT m.name, i.name, l.name FROM sqlite_schema AS m JOIN pragma_index_list(m.name) AS l JOIN pragma_index_info(l.name) AS i"
            + " WHERE m.type = 'table' AND m.name LIKE 'es/%' AND l.partial = 0 AND i.seqno = 0")
        try statement.bind([])
        var leading: Set<String> = []
        var indexColumns: [String: String] = [:]
        while try statement.step() {
            guard let table = statement.text(at: 0), let column = statement.text(at: 1), let index = statement.text(at: 2) else { continue }
            leading.insert(table + "\u{0}" + column)
            indexColumns[table + "\u{0}" + index] = column
        }
        var perValue: [String: Double] = [:], tableRows: [String: Double] = [:]
        if try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'") == 1 {
            let stats = try db.prepare("SELECT tbl, idx, stat FROM sqlite_stat1 WHERE tbl LIKE 'es/%'")
            try stats.bind([])
            while try stats.step() {
                guard let table = stats.text(at: 0), let text = stats.text(at: 2) else { continue }
                // "rows perValue(first column) perValue(first two) ...", then options (`unordered`).
                let figures = text.split(separator: " ").prefix(2).compactMap { Double(String($0)) }
                guard let rows = figures.first else { continue }
                tableRows[table] = max(tableRows[table] ?? 0, rows)
                guard figures.count == 2, let rowsPerValue = figures.last, let index = stats.text(at: 1),
                      let column = indexColumns[table + "\u{0}" + index] else { continue }
                let key = table + "\u{0}" + column
                perValue[key] = min(perValue[key] ?? rowsPerValue, rowsPerValue)
            }
        }
        return IndexedColumns(version: version, leading: leading, perValue: perValue, tableRows: tableRows)
    }
}
