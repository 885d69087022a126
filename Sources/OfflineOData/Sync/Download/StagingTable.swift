/// The table a download writes its entities into, page by page, when the entity set's own table
/// held nothing when it started, and that then becomes that table: each entity is written once.
///
/// Readers never read it (its name is no entity set's), so they see the set's table as it was,
/// empty, until the download's last transaction swaps the staging table in (``swapIn(in:)``):
/// the defining request's content appears whole or not at all, as with kept pages. A page's rows
/// are committed with the point after it (``DownloadResumeTable/savePoint(_:in:)``), so a killed
/// download resumes at the page after the last one committed, and its rows are kept.
///
/// Only a full download without `$expand` (one table, no links between entities of two pages'
/// ids) into a table that holds no row, in a store that is not encrypted, qualifies (``qualifies(_:isDelta:schema:model:dialect:db:)``):
/// then nothing in the store refers to the table's rows, so replacing the table loses nothing, and
/// the swap only records the memberships. Any other download keeps its pages (``StagedPageSink``).
struct StagingTable {
    let definingRequest: String
    /// The entity set's own table.
    let final: EntitySetTable
    /// The same columns under the staging name.
    let staging: EntitySetTable

    init(definingRequest: String, final: EntitySetTable) {
        self.definingRequest = definingRequest
        self.final = final
        staging = EntitySetTable(entitySet: final.entitySet, tableName: DownloadResumeTable.stagingTableName(of: definingRequest),
                                 entityType: final.entityType, columns: final.columns, keyColumns: final.keyColumns,
                                 foreignKeyColumns: final.foreignKeyColumns)
    }

    /// The staging table for a download of `request` that starts now, when it qualifies: full,
    /// without `$expand`, into a table that holds no row.
    static func qualifies(_ request: DefiningRequest, isDelta: Bool, schema: StoreSchema, model: MetadataModel,
                          dialect: Dialect, db: SQLiteConnection) throws(ODataError) -> StagingTable? {
        // An encrypted store sorts in memory (its temporary files could not carry the key): an
        // index built at the swap would hold every key at once, so it keeps pages instead.
        guard !isDelta, !db.isEncrypted, let target = try? DefiningRequestTarget(url: request.url, model: model, dialect: dialect),
              target.root.navigations.isEmpty, target.entitySets.count == 1,
              let table = schema.table(forEntitySet: target.root.entitySet), !table.keyColumns.isEmpty else { return nil }
        let staging = StagingTable(definingRequest: request.name, final: table)
        return try staging.finalIsEmpty(in: db) ? staging : nil
    }

    /// The staging table of a kept download of `request`, when it is there with the columns the
    /// set's table has now (a model change since leaves it unusable).
    static func kept(for request: DefiningRequest, schema: StoreSchema, model: MetadataModel, dialect: Dialect,
                     db: SQLiteConnection) throws(ODataError) -> StagingTable? {
        guard let target = try? DefiningRequestTarget(url: request.url, model: model, dialect: dialect),
              target.root.navigations.isEmpty, target.entitySets.count == 1,
              let table = schema.table(forEntitySet: target.root.entitySet) else { return nil }
        let staging = StagingTable(definingRequest: request.name, final: table)
        let statement = try db.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
        try statement.bind([.text(staging.staging.name)])
        var columns: [String] = []
        while try statement.step() { columns.append(statement.text(at: 0) ?? "") }
        let expected = SQLQuery.systemColumns + table.columns.map(\.sqlName)
        return columns.count == expected.count && Set(columns) == Set(expected) ? staging : nil
    }

    /// The page cache while the swap builds the set's indexes, in KiB (SQLite's sort keeps about
    /// that much in memory before it spills).
    static let sortCacheKiB = 2048

    /// The page cache while a staged download writes and swaps in, in KiB: half the store's 16 MB.
    /// The 16 MB is for a download written in one transaction, whose dirty pages would otherwise
    /// spill to the WAL and be written again; a staged download commits each page, so its cache
    /// only keeps pages read again (the tables' right edges, the key index: about 500,000 integer
    /// keys in 8 MB). Measured on 200,000 entities in pages of 100: the same time, a peak of
    /// 39.6 MB instead of 48.1 MB (`make bench-compare`'s download-memory).
    static let downloadCacheKiB = 8192

    /// Runs `body` (the staged download and its swap) with the page cache at ``downloadCacheKiB``,
    /// then puts back the connection's own.
    static func withDownloadCache<T>(in db: SQLiteConnection, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        try db.withPageCache(kibibytes: downloadCacheKiB, body)
    }

    private func finalIsEmpty(in db: SQLiteConnection) throws(ODataError) -> Bool {
        try db.scalarInt("SELECT NOT EXISTS (SELECT 1 FROM \(final.quotedName))") == 1
    }

    /// Creates the staging table, without indexes when its key is one integer column (its rows go
    /// in while their keys grow, ``IncreasingKeys``), else with the key's unique index only (an
    /// entity repeated on a later page is matched by its key, as in the set's table); the set's
    /// indexes are made once, over all the rows, when it is swapped in. In the caller's transaction.
    func create(in db: SQLiteConnection, keyColumn: Int?) throws(ODataError) {
        try DownloadResumeTable.dropStagingTable(of: definingRequest, in: db)
        // The set's table, then its key's unique index (``EntitySetTable/createStatements``'s order).
        for statement in staging.createStatements.prefix(keyColumn == nil ? 2 : 1) { try db.execute(statement) }
    }

    /// The name of the staging table's key index, when it has one.
    private var stagingKeyIndex: String { staging.name + "/key" }

    /// Lets `plan` (the staging table's) write rows without the key index while their keys grow,
    /// when the table has no key index (``create(in:keyColumn:)`` made none, or none was built
    /// since): the largest key so far is the last row's, as the rows' ids grew with their keys.
    func startIncreasingKeys(_ plan: TablePlan, in db: SQLiteConnection) throws(ODataError) {
        plan.increasingKeys = nil
        guard let column = plan.integerKeyColumn, plan.table.columns.indices.contains(column),
              try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                               [.text(stagingKeyIndex)]) == 0,
              let indexStatement = staging.createStatements.dropFirst().first else { return }
        let last = try db.scalarInt("SELECT \(plan.table.columns[column].quotedName) FROM \(staging.quotedName) ORDER BY \"_ood_id\" DESC LIMIT 1")
        plan.increasingKeys = IncreasingKeys(column: column, last: last, indexStatement: indexStatement)
    }

    /// Makes the staging table the set's table, in the caller's transaction: the empty table is
    /// dropped with its indexes, the staging table renamed to its name, the indexes it had (the
    /// store's, declared and automatic ones) made again over the rows, and the memberships of the
    /// defining request written. False, changing nothing, when the set's table holds rows by now
    /// (a local create or another process wrote into it meanwhile): the caller downloads anew.
    func swapIn(in db: SQLiteConnection) throws(ODataError) -> Bool {
        guard try finalIsEmpty(in: db) else { return false }
        // Their statements as SQLite keeps them, naming the set's table, which the staging table is about to be named.
        let indexes = try db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")
        try indexes.bind([.text(final.name)])
        var statements: [String] = []
        while try indexes.step() { if let sql = indexes.text(at: 0) { statements.append(sql) } }
        try db.execute("DROP TABLE \(final.quotedName)")
        try db.execute("ALTER TABLE \(staging.quotedName) RENAME TO \(final.quotedName)")
        try db.execute("DROP INDEX IF EXISTS \(quoteIdentifier(stagingKeyIndex))")
        // Built by sorting: with a large page cache the sort keeps that much in memory (at least
        // 250 pages, 4 MB); a small one makes it spill to a temporary file sooner, so a download's
        // memory stays one page and the one ahead, whatever the number of entities.
        try db.withPageCache(kibibytes: Self.sortCacheKiB) { () throws(ODataError) in
            for statement in statements { try db.execute(statement) }
        }
        // The set's table held nothing: any membership of it the request had named no row.
        try db.prepare("DELETE FROM ood_membership WHERE defining_request = ?1 AND entity_set = ?2")
            .run([.text(definingRequest), .text(final.entitySet)])
        try db.prepare("""
            INSERT OR IGNORE INTO ood_membership (entity_set, entity_id, defining_request)
            SELECT ?1, "_ood_id", ?2 FROM \(final.quotedName)
            """).run([.text(final.entitySet), .text(definingRequest)])
        // Renaming makes no row event: live queries over the set are told here.
        db.changeTracker?.noteReplaced(table: final.name)
        return true
    }
}
