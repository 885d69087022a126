/// Brings a store's tables from the schema of its model to the schema of a new one, inside the
/// caller's transaction (so a crash leaves the store whole on one model or the other).
///
/// Two ways, chosen per table:
/// - **in place** (``isInPlace``): a table that only gains columns gets `ALTER TABLE ADD COLUMN`,
///   a new entity set gets its table; nothing else is touched, the queue and every row stay.
/// - **rebuilt**: a table whose columns changed otherwise (a property removed or retyped, a key
///   changed) is made anew under the new schema and every row is copied over with its system
///   columns (`_ood_id`, its pending change, its error mark), so queued requests still name their
///   rows; values of columns the new schema lacks are dropped. A table of a removed entity set is
///   dropped with its memberships. The full download that follows replaces the downloaded values.
struct ModelMigration {
    let old: StoreSchema
    let new: StoreSchema

    /// What the migration did (or would do).
    struct Summary: Sendable, Equatable {
        var addedColumns: [String] = []
        var addedTables: [String] = []
        var rebuiltTables: [String] = []
        var droppedTables: [String] = []
    }

    /// Whether every change is an added column or an added table.
    var isInPlace: Bool {
        plan().rebuiltTables.isEmpty && plan().droppedTables.isEmpty
    }

    /// What ``apply(in:)`` does, table by table.
    func plan() -> Summary {
        var summary = Summary()
        for table in new.tables {
            guard let before = old.table(forEntitySet: table.entitySet) else {
                summary.addedTables.append(table.entitySet)
                continue
            }
            if let added = Self.addedColumns(from: before, to: table) {
                summary.addedColumns += added.map { table.entitySet + "/" + $0.name }
            } else {
                summary.rebuiltTables.append(table.entitySet)
            }
        }
        for table in old.tables where new.table(forEntitySet: table.entitySet) == nil {
            summary.droppedTables.append(table.entitySet)
        }
        return summary
    }

    /// The columns `after` adds to `before`, when that is all that differs; nil when the table
    /// must be rebuilt.
    static func addedColumns(from before: EntitySetTable, to after: EntitySetTable) -> [StoredColumn]? {
        guard before.name == after.name, before.keyColumns.map(\.sqlName) == after.keyColumns.map(\.sqlName) else { return nil }
        for column in before.columns {
            guard let counterpart = after.column(named: column.name), counterpart.sqlName == column.sqlName,
                  counterpart.sqlDeclaration == column.sqlDeclaration else { return nil }
        }
        let existing = Set(before.columns.map { asciiLowercased($0.sqlName) })
        return after.columns.filter { !existing.contains(asciiLowercased($0.sqlName)) }
    }

    /// Applies the plan; the caller holds the transaction.
    @discardableResult
    func apply(in db: SQLiteConnection) throws(ODataError) -> Summary {
        let summary = plan()
        for table in new.tables {
            guard let before = old.table(forEntitySet: table.entitySet) else { continue }
            if let added = Self.addedColumns(from: before, to: table) {
                for column in added {
                    try db.execute("ALTER TABLE \(table.quotedName) ADD COLUMN \(column.quotedName) \(column.sqlDeclaration)")
                }
            } else {
                try rebuild(before, as: table, in: db)
            }
        }
        for name in summary.droppedTables {
            guard let table = old.table(forEntitySet: name) else { continue }
            try db.execute("DROP TABLE IF EXISTS \(table.quotedName)")
            try db.prepare("DELETE FROM ood_membership WHERE entity_set = ?1").run([.text(name)])
        }
        // New tables, and the indexes of new columns (a foreign key's): all `IF NOT EXISTS`.
        for statement in new.createStatements { try db.execute(statement) }
        return summary
    }

    /// Makes `after` from `before`'s rows: the old table is renamed aside, its indexes dropped
    /// (their names are the new table's), the new one made, the rows copied, the old one dropped;
    /// then the declared and automatic indexes are made again where their columns are still
    /// there (those whose columns went are forgotten in `ood_index`).
    private func rebuild(_ before: EntitySetTable, as after: EntitySetTable, in db: SQLiteConnection) throws(ODataError) {
        // Their statements as they were, naming the table by its own name (a rename rewrites them).
        let indexes = try db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")
        try indexes.bind([.text(before.name)])
        var kept: [(name: String, sql: String)] = []
        while try indexes.step() {
            if let name = indexes.text(at: 0), let sql = indexes.text(at: 1) { kept.append((name, sql)) }
        }
        let aside = before.name + "~migrating"
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(aside))")
        try db.execute("ALTER TABLE \(before.quotedName) RENAME TO \(quoteIdentifier(aside))")
        for index in kept { try db.execute("DROP INDEX IF EXISTS \(quoteIdentifier(index.name))") }
        for statement in after.createStatements { try db.execute(statement) }
        var targets = SQLQuery.systemColumns.map(quoteIdentifier)
        var sources = targets
        for column in after.columns {
            guard let source = before.column(named: column.name) else { continue }
            targets.append(column.quotedName)
            sources.append(source.quotedName)
        }
        try db.execute("INSERT INTO \(after.quotedName) (\(targets.joined(separator: ", "))) "
                       + "SELECT \(sources.joined(separator: ", ")) FROM \(quoteIdentifier(aside))")
        try db.execute("DROP TABLE \(quoteIdentifier(aside))")
        // Only the indexes the store records (its own come from the create statements), and only
        // where every column is still there: SQLite would take a missing quoted name for a string.
        let recorded = try IndexTable.all(in: db).filter { $0.entitySet == after.entitySet }
        for index in kept {
            guard let record = recorded.first(where: { $0.name == index.name }) else { continue }
            if record.properties.allSatisfy({ after.column(named: $0) != nil }) {
                try db.execute(index.sql)
            } else {
                try db.prepare("DELETE FROM ood_index WHERE name = ?1").run([.text(index.name)])
            }
        }
    }
}
