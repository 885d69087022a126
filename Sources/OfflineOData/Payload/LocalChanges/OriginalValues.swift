/// The values an entity had when it was last synced, kept in `ood_original` from its first local
/// change until the service has taken every change, so that an undo can put them back.
///
/// One row per stored column (plus the ETag and concrete type), copied by SQLite itself: the
/// values never pass through Swift, and each keeps its SQLite type.
enum OriginalValues {
    /// Columns per statement: a compound SELECT may have at most 500 terms.
    private static let columnsPerStatement = 200

    /// Saves the entity's current row; call it before the first local change of a synced entity.
    static func save(entityID: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) {
        for part in columnChunks(of: table) {
            // ?1 the set, ?2 the entity, ?3... the column names: no name or value in the SQL text.
            let selects = part.enumerated().map { index, column in
                "SELECT ?1, ?2, ?\(index + 3), \(column.quoted) FROM \(table.quotedName) WHERE \"_ood_id\" = ?2"
            }
            try db.prepare("INSERT OR REPLACE INTO ood_original (entity_set, entity_id, property, value) "
                           + selects.joined(separator: " UNION ALL "))
                .run([.text(table.entitySet), .integer(entityID)] + part.map { .text($0.name) })
        }
    }

    /// Puts the saved values back into the entity's row and forgets them; false when none were saved.
    static func restore(entityID: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Bool {
        let saved = try db.scalarInt("SELECT count(*) FROM ood_original WHERE entity_set = ?1 AND entity_id = ?2",
                                     [.text(table.entitySet), .integer(entityID)]) ?? 0
        guard saved > 0 else { return false }
        for part in columnChunks(of: table) {
            let assignments = part.enumerated().map { index, column in
                "\(column.quoted) = (SELECT value FROM ood_original WHERE entity_set = ?1 AND entity_id = ?2 AND property = ?\(index + 3))"
            }
            try db.prepare("UPDATE \(table.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \"_ood_id\" = ?2")
                .run([.text(table.entitySet), .integer(entityID)] + part.map { .text($0.name) })
        }
        try forget(entitySet: table.entitySet, entityID: entityID, on: db)
        return true
    }

    /// The saved values by column name (the ETag and type left out); empty when none were saved.
    static func values(entityID: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> [String: SQLValue] {
        let select = try db.prepare("SELECT property, value FROM ood_original WHERE entity_set = ?1 AND entity_id = ?2")
        try select.bind([.text(table.entitySet), .integer(entityID)])
        var values: [String: SQLValue] = [:]
        while try select.step() {
            guard let name = select.text(at: 0), table.column(named: name) != nil else { continue }
            values[name] = select.value(at: 1)
        }
        return values
    }

    /// Whether values were saved for the entity (it was synced when first changed offline).
    static func areSaved(entityID: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Bool {
        try db.withCachedStatement("SELECT 1 FROM ood_original WHERE entity_set = ?1 AND entity_id = ?2 LIMIT 1") {
            select throws(ODataError) -> Bool in
            try select.bind([.text(table.entitySet), .integer(entityID)])
            return try select.step()
        }
    }

    /// Takes an accepted change into the saved values while later changes of the entity are still
    /// queued: they are then what the service has, for an undo and for ``ETagRecovery``.
    static func accept(_ values: [String: SQLValue], entityID: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("UPDATE ood_original SET value = ?4 WHERE entity_set = ?1 AND entity_id = ?2 AND property = ?3") {
            update throws(ODataError) in
            for (name, value) in values { try update.run([.text(table.entitySet), .integer(entityID), .text(name), value]) }
        }
    }

    /// Drops the saved values: the service has the entity's changes, or the entity is gone.
    static func forget(entitySet: String, entityID: Int64, on db: SQLiteConnection) throws(ODataError) {
        try db.prepare("DELETE FROM ood_original WHERE entity_set = ?1 AND entity_id = ?2").run([.text(entitySet), .integer(entityID)])
    }

    /// The saved columns in chunks: each by the name `ood_original.property` keeps (the OData
    /// name, which saved values are matched by) and its quoted SQL name, for the SQL text.
    private static func columnChunks(of table: EntitySetTable) -> [[(name: String, quoted: String)]] {
        let columns = ["_ood_etag", "_ood_type"].map { (name: $0, quoted: quoteIdentifier($0)) }
            + table.columns.map { (name: $0.name, quoted: $0.quotedName) }
        return stride(from: 0, to: columns.count, by: columnsPerStatement).map { start in
            Array(columns[start..<min(start + columnsPerStatement, columns.count)])
        }
    }
}
