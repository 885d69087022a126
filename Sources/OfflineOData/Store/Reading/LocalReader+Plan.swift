/// The plan SQLite chooses for a read, for `explain`: which index it searches or scans, and
/// whether it sorts. Shows whether a declared or automatic index serves the read.
extension LocalReader {
    /// `EXPLAIN QUERY PLAN` of the read's main statement (its count statement for a `/$count`
    /// read), one line per step (`SEARCH t0 USING INDEX es/Agencies/key (ID>?)`), with the
    /// read's values bound as the read binds them: nothing is run. `request` is bound already
    /// (``LocalStore/explain(url:)`` binds a read once).
    func queryPlan(_ request: BoundRequest, on db: SQLiteConnection) throws(ODataError) -> [String] {
        let plan = try ReadTranslation.plan(request, schema: schema, names: names, indexed: try currentIndexes(on: db), probe: db)
        guard let query = plan.main ?? plan.count else { return [] }
        let statement = try db.prepare("EXPLAIN QUERY PLAN " + query.sql)
        try statement.bind(query.parameters)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(at: 3) ?? "") }
        return lines
    }
}
