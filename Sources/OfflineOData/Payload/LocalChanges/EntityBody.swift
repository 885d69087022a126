/// The JSON body of a create or update, turned into column values and checked against the model.
///
/// Members are properties of the entity type (complex values are flattened into their leaf
/// columns, collections kept as JSON); annotations (`@odata.*`, V2 `__metadata`) are skipped;
/// anything else is refused, so a misspelt property never disappears silently.
struct EntityBody {
    /// Column name (OData's, ``StoredColumn/name``) → stored value, for the members the body gives.
    private(set) var values: [String: SQLValue] = [:]
    /// The members' column names in body order, for the SQL statements (which name each column
    /// by its ``StoredColumn/quotedName``: see ``assignments(in:)``).
    private(set) var columnOrder: [String] = []

    /// - Throws: ``ODataError/Code/syntax`` for a body that is not a JSON object,
    ///   ``ODataError/Code/semantic`` for unknown properties and values of the wrong type,
    ///   ``ODataError/Code/constraint`` for null in a non-nullable property or a string beyond its MaxLength.
    init(json bytes: [UInt8], table: EntitySetTable, dialect: Dialect) throws(ODataError) {
        var document = try JSONValue.parse(bytes)
        // V2 clients sometimes wrap the entity as a response is wrapped.
        if let wrapped = document["d"], document.objectMembers?.count == 1 { document = wrapped }
        guard let members = document.objectMembers else {
            throw ODataError(.syntax, "the request body must be a JSON object with the entity's properties")
        }
        // Room for every member at once (and a provisional key), instead of growing step by step.
        values.reserveCapacity(members.count + 1)
        columnOrder.reserveCapacity(members.count + 1)
        try add(members, prefix: [], table: table, dialect: dialect)
    }

    private mutating func add(_ members: [JSONMember], prefix: [String], table: EntitySetTable, dialect: Dialect) throws(ODataError) {
        for member in members {
            // Annotations (`@odata.etag`, `Name@odata.type`) and V2's `__metadata` are not
            // properties. Scanning the UTF-8 bytes: a Character search costs far more.
            if member.key.utf8.contains(UInt8(ascii: "@")) || member.key == "__metadata" { continue }
            // A top-level member is looked up by its name as is (the joined path of one step is the
            // name itself), so no path is built for the common flat body.
            let found = prefix.isEmpty ? table.column(named: member.key) : table.column(path: prefix + [member.key])
            if let column = found {
                let value = try EDMValueCodec.storedValue(fromJSON: member.value, column: column, dialect: dialect)
                try Self.check(value, against: column)
                record(value, for: column)
                continue
            }
            let path = prefix + [member.key]
            if let nested = member.value.objectMembers, table.columns.contains(where: { $0.path.starts(with: path) }) {
                // A complex value: its members are the flattened columns below this path.
                try add(nested, prefix: path, table: table, dialect: dialect)
            } else if member.value.isNull, table.columns.contains(where: { $0.path.starts(with: path) }) {
                // A null complex value: every leaf below it becomes null.
                for column in table.columns where column.path.starts(with: path) {
                    try Self.check(.null, against: column)
                    record(.null, for: column)
                }
            } else if member.value.objectMembers?.contains(where: { $0.key == "__deferred" }) == true {
                continue
            } else {
                throw ODataError(.semantic, "'\(path.joined(separator: "/"))' is not a property of \(table.entityType)")
            }
        }
    }

    /// Nullability and MaxLength, the facets a local write can break.
    static func check(_ value: SQLValue, against column: StoredColumn) throws(ODataError) {
        if value == .null {
            guard column.isNullable else {
                throw ODataError(.constraint, "property '\(column.name)' cannot be null")
            }
            return
        }
        if let maxLength = column.maxLength, case .text(let text) = value, column.primitiveType == .string,
           text.count > maxLength {
            throw ODataError(.constraint, "property '\(column.name)' is limited to \(maxLength) characters, the value has \(text.count)")
        }
    }

    func value(of column: StoredColumn) -> SQLValue? { values[column.name] }

    /// Sets a value the body did not give (a provisional key, say).
    mutating func provide(_ value: SQLValue, for column: StoredColumn) { record(value, for: column) }

    private mutating func record(_ value: SQLValue, for column: StoredColumn) {
        guard values.updateValue(value, forKey: column.name) == nil else { return }
        columnOrder.append(column.name)
    }

    /// Each member's column and value, in body order: what an update sets. `table` is the one the
    /// body was read against.
    /// - Throws: ``ODataError/Code/internalError`` if a member is not a column of `table`.
    func assignments(in table: EntitySetTable) throws(ODataError) -> [ColumnAssignment] {
        var assignments: [ColumnAssignment] = []
        assignments.reserveCapacity(columnOrder.count)
        for name in columnOrder {
            guard let value = values[name] else { continue }
            assignments.append(ColumnAssignment(name: name, quotedColumn: try table.quotedColumnName(name), value: value))
        }
        return assignments
    }
}

/// One column's new value in an `UPDATE`: `quotedColumn` for the SQL text, `name` to match it
/// with other requests' members.
struct ColumnAssignment {
    var name: String
    var quotedColumn: String
    var value: SQLValue

    /// Null for `column`: what a PUT gives the properties its body leaves out.
    static func null(_ column: StoredColumn) -> ColumnAssignment {
        ColumnAssignment(name: column.name, quotedColumn: column.quotedName, value: .null)
    }
}
