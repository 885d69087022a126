/// The table that holds one entity set: a column per stored value of the set's type and of every
/// type derived from it, plus the engine's system columns.
///
/// System columns (the prefix `_ood_` is reserved: a model property named so is refused):
/// - `_ood_id`: the entity's local identity (the SQLite rowid), stable for the entity's life in
///   the store, also for entities created offline whose key the service has not assigned yet;
/// - `_ood_type`: the entity's concrete type, when it is a type derived from the set's type;
/// - `_ood_etag`: the ETag the service last sent;
/// - `_ood_change`: the pending local change, NULL when none (see ``LocalChange``);
/// - `_ood_error`: 1 when an uploaded change of the entity was refused and sits in the error archive.
@_spi(Tool) public struct EntitySetTable: Sendable {
    /// The entity set's name in the model.
    @_spi(Tool) public let entitySet: String
    /// The qualified name of the set's entity type.
    package let entityType: String
    /// The SQL table name (`es/TravelagencyCollection`), quoted where used.
    package let name: String
    /// Every stored value, the set's type's first (in declaration order, inherited first).
    package let columns: [StoredColumn]
    /// The key, in key order; empty when the type has no usable key.
    package let keyColumns: [StoredColumn]
    /// Columns on the dependent side of a referential constraint: indexed for `$expand` joins.
    package let foreignKeyColumns: [StoredColumn]

    /// ``name`` quoted for SQL text (kept: every statement on the table names it).
    package let quotedName: String
    /// The system columns a response row starts with (``SQLQuery/systemColumns``), then every
    /// stored column: the row a create answers with.
    let responseRowColumns: String

    /// The column of a property path (`["Address", "City"]`), if it is stored as one column.
    package func column(path: [String]) -> StoredColumn? {
        columnsByName[path.joined(separator: "/")]
    }

    /// The column named by a `/`-joined path.
    package func column(named name: String) -> StoredColumn? { columnsByName[name] }

    /// The SQL text for the column named `name` (its OData name): its ``StoredColumn/quotedName``,
    /// which is not always `name` quoted (case-distinct names, see ``StoreSchema``).
    /// - Throws: ``ODataError/Code/internalError`` when the table has no such column.
    func quotedColumnName(_ name: String) throws(ODataError) -> String {
        guard let column = columnsByName[name] else {
            throw ODataError(.internalError, "\(entitySet) has no column '\(name)'")
        }
        return column.quotedName
    }

    private let columnsByName: [String: StoredColumn]

    /// `tableName` defaults to `es/` and the set's name (``StoreSchema`` gives another to a set
    /// whose name differs from an earlier one's only in case).
    init(entitySet: String, tableName: String? = nil, entityType: String, columns: [StoredColumn], keyColumns: [StoredColumn],
         foreignKeyColumns: [StoredColumn]) {
        self.entitySet = entitySet
        self.entityType = entityType
        self.name = tableName ?? "es/" + entitySet
        self.quotedName = quoteIdentifier(tableName ?? "es/" + entitySet)
        self.responseRowColumns = (SQLQuery.systemColumns.map(quoteIdentifier) + columns.map(\.quotedName)).joined(separator: ", ")
        self.columns = columns
        self.keyColumns = keyColumns
        self.foreignKeyColumns = foreignKeyColumns
        var byName: [String: StoredColumn] = [:]
        for column in columns { byName[column.name] = column }
        columnsByName = byName
    }

    /// `CREATE TABLE` and its indexes.
    var createStatements: [String] {
        var definitions = [
            "\"_ood_id\" INTEGER PRIMARY KEY",
            "\"_ood_type\" TEXT",
            "\"_ood_etag\" TEXT",
            "\"_ood_change\" TEXT",
            "\"_ood_error\" INTEGER NOT NULL DEFAULT 0",
        ]
        definitions += columns.map { "\($0.quotedName) \($0.sqlDeclaration)" }
        var statements = ["CREATE TABLE IF NOT EXISTS \(quotedName) (\n    \(definitions.joined(separator: ",\n    "))\n)"]
        // The key identifies an entity. Entities created offline may not have one yet (NULLs are
        // distinct in a UNIQUE index), hence no NOT NULL on key columns.
        if !keyColumns.isEmpty {
            let keyList = keyColumns.map(\.quotedName).joined(separator: ", ")
            statements.append("CREATE UNIQUE INDEX IF NOT EXISTS \(quoteIdentifier(name + "/key")) ON \(quotedName) (\(keyList))")
        }
        for column in foreignKeyColumns where !keyColumns.contains(column) {
            statements.append("CREATE INDEX IF NOT EXISTS \(quoteIdentifier(name + "/" + column.sqlName)) ON \(quotedName) (\(column.quotedName))")
        }
        statements.append("CREATE INDEX IF NOT EXISTS \(quoteIdentifier(name + "/_ood_change")) ON \(quotedName) (\"_ood_change\") WHERE \"_ood_change\" IS NOT NULL")
        return statements
    }
}

/// A pending local change of an entity, as `_ood_change` records it.
package enum LocalChange: String, Sendable {
    /// Created offline, not yet uploaded.
    case created
    /// Changed offline (PATCH, PUT or MERGE), not yet uploaded.
    case updated
    /// Deleted offline: hidden from reads, kept until the delete is uploaded.
    case deleted
}
