/// What one local write works out that the next one would work out the same way: the SQL texts
/// of a create's insert, of its read-back and of the key lookup.
///
/// A burst of creates has bodies of the same shape, and assembling the SQL text again costs more
/// than SQLite's own work for the insert (the URL's resolution is kept by ``RequestResolutionCache``).
/// Everything kept is derived from the table alone (the model and the dialect are fixed for a
/// store), so a kept answer is the answer a fresh computation would give; failures are never kept.
/// The store keeps one instance, used only under the write connection's lock
/// (``StoreFile/withConnection(_:)``), which serializes every write.
final class LocalWriteCache {
    /// Entries per kind before the kind is emptied: writes to more URLs or shapes than this
    /// simply work them out again.
    private static let limit = 64

    private struct InsertShape: Hashable {
        var entitySet: String
        var columns: [String]
    }

    private var inserts: [InsertShape: String] = [:]
    private var existingRowLookups: [String: String] = [:]
    private var createdRows: [String: String] = [:]

    /// `INSERT INTO table (columns..., "_ood_change") VALUES (?1, ...)` for the columns named
    /// `columns` (their OData names; the SQL text has their SQL names).
    func insertSQL(into table: EntitySetTable, columns: [String]) throws(ODataError) -> String {
        let shape = InsertShape(entitySet: table.entitySet, columns: columns)
        if let kept = inserts[shape] { return kept }
        var quoted: [String] = []
        for name in columns { quoted.append(try table.quotedColumnName(name)) }
        let names = (quoted + ["\"_ood_change\""]).joined(separator: ", ")
        let placeholders = (1...(columns.count + 1)).map { "?\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(table.quotedName) (\(names)) VALUES (\(placeholders))"
        if inserts.count >= Self.limit { inserts.removeAll() }
        inserts[shape] = sql
        return sql
    }

    /// The row of a created entity by its local id (?1), as a create answers it: the system
    /// columns, then every stored column (``EntitySetTable/responseRowColumns``).
    func createdRowSQL(in table: EntitySetTable) -> String {
        if let kept = createdRows[table.entitySet] { return kept }
        let sql = "SELECT \(table.responseRowColumns) FROM \(table.quotedName) WHERE \"_ood_id\" = ?1"
        if createdRows.count >= Self.limit { createdRows.removeAll() }
        createdRows[table.entitySet] = sql
        return sql
    }

    /// The lookup of an entity of `table` by its key values (the statement's first parameters)
    /// that is not deleted locally: its local id, ETag and whether it has no local change.
    /// - Throws: ``ODataError/Code/unsupported`` for a set without a key.
    func existingRowSQL(in table: EntitySetTable) throws(ODataError) -> String {
        if let kept = existingRowLookups[table.entitySet] { return kept }
        let sql = """
            SELECT "_ood_id", "_ood_etag", "_ood_change" IS NULL FROM \(table.quotedName)
            WHERE \(try table.keyCondition()) AND "_ood_change" IS NOT 'deleted'
            """
        if existingRowLookups.count >= Self.limit { existingRowLookups.removeAll() }
        existingRowLookups[table.entitySet] = sql
        return sql
    }
}
