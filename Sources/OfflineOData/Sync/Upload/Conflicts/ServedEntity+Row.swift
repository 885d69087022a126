/// What a conflict policy writes of the service's entity into the store's row.
extension ServedEntity {
    /// Columns per UPDATE statement, well below SQLite's limit on bound parameters.
    private static let columnsPerStatement = 200

    /// Writes the served values of every column but those in `keeping` (the local change's, which
    /// win) into the row `entityID`, and the served ETag; the caller holds the transaction.
    func write(entityID id: Int64, keeping: Set<String>, on db: SQLiteConnection) throws(ODataError) {
        let given = table.columns.compactMap { column in
            keeping.contains(column.name) ? nil : value(of: column).map { (column, $0) }
        }
        for start in stride(from: 0, to: given.count, by: Self.columnsPerStatement) {
            let part = given[start..<min(start + Self.columnsPerStatement, given.count)]
            let sets = part.enumerated().map { "\($0.element.0.quotedName) = ?\($0.offset + 2)" }
            try db.prepare("UPDATE \(table.quotedName) SET \(sets.joined(separator: ", ")) WHERE \"_ood_id\" = ?1")
                .run([.integer(id)] + part.map(\.1))
        }
        try db.prepare("UPDATE \(table.quotedName) SET \"_ood_etag\" = ?2 WHERE \"_ood_id\" = ?1")
            .run([.integer(id), etag.map { SQLValue.text($0) } ?? .null])
    }

    /// Every served value by column name: the values the service has now, which a change sent
    /// again is made on.
    var storedValues: [String: SQLValue] {
        var values: [String: SQLValue] = [:]
        for column in table.columns { if let value = value(of: column) { values[column.name] = value } }
        return values
    }
}
