/// Keeps SQLite's statistics (`sqlite_stat1`) current for the tables a download or a load wrote.
///
/// Without statistics SQLite guesses every table's size and every index's selectivity alike, and
/// may scan a table of ten million rows where an index reads twenty. `ANALYZE` runs after each
/// defining request's transaction, not inside it: it takes the write lock for a moment (readers
/// in WAL mode never wait for it), and the statements of other connections are prepared again
/// with the new figures. `analysis_limit` makes it read a sample of each index, so it costs
/// milliseconds at any size; the figures it leaves are estimates, which is all the planner needs.
enum StoreStatistics {
    /// Rows sampled per index (SQLite's recommended range is 100 to 1000).
    static let sampledRows = 1000

    /// Analyses the tables of `entitySets` (the sets a defining request stores into).
    static func refresh(entitySets: [String], schema: StoreSchema, on db: SQLiteConnection) throws(ODataError) {
        let tables = entitySets.compactMap { schema.table(forEntitySet: $0) }
        guard !tables.isEmpty else { return }
        try db.execute("PRAGMA analysis_limit = \(sampledRows)")
        for table in tables {
            try db.execute("ANALYZE " + table.quotedName)
        }
    }

    /// The entity sets the defining request `url` stores into; none when it does not resolve
    /// (the download itself reports that).
    static func entitySets(of url: String, model: MetadataModel, dialect: Dialect) -> [String] {
        (try? DefiningRequestTarget(url: url, model: model, dialect: dialect))?.entitySets ?? []
    }
}
