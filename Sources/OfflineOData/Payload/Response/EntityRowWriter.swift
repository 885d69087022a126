import CSQLite

/// Writes the entity in the current row of a statement as an OData JSON object, V4 or V2.
///
/// The hot path reads text straight from SQLite's buffer into the writer and uses keys escaped
/// once per query; only values whose JSON form differs from the stored one (dates, decimals,
/// V2 Int64, binary) go through `EDMValueCodec`.
struct EntityRowWriter {
    static let etagKey = JSONWriter.EncodedKey("@odata.etag")
    static let typeKey = JSONWriter.EncodedKey("@odata.type")
    static let metadataKey = JSONWriter.EncodedKey("__metadata")
    static let uriKey = JSONWriter.EncodedKey("uri")
    static let v2TypeKey = JSONWriter.EncodedKey("type")
    static let v2EtagKey = JSONWriter.EncodedKey("etag")
    static let deferredKey = JSONWriter.EncodedKey("__deferred")
    static let resultsKey = JSONWriter.EncodedKey("results")

    let model: MetadataModel
    let dialect: Dialect
    /// The service root, ending in `/`.
    let serviceRoot: String
    let table: EntitySetTable
    let columns: [StoredColumn]
    /// The result column of `_ood_id`; `_ood_etag` and `_ood_type` follow it.
    let idColumn: Int
    let select: [[String]]?
    private var layouts: [String: EntityLayout] = [:]

    init(model: MetadataModel, dialect: Dialect, serviceRoot: String, query: SQLQuery, select: [[String]]?) {
        self.model = model
        self.dialect = dialect
        self.serviceRoot = serviceRoot
        self.table = query.table
        self.columns = query.columns
        self.idColumn = query.leadingColumns
        self.select = select
    }

    /// The layout for a concrete type (the set's type when `_ood_type` is NULL).
    mutating func layout(for typeName: String) -> EntityLayout {
        if let known = layouts[typeName] { return known }
        let type = model.entityType(named: typeName) ?? model.entityType(named: table.entityType)
        let hierarchy = type.map { model.typeHierarchy(of: $0).map(\.qualifiedName) } ?? [table.entityType]
        let navigations = type.map { model.navigationProperties(of: $0).map(\.name) } ?? []
        let layout = EntityLayout(typeName: typeName, columns: columns, firstColumn: idColumn + SQLQuery.systemColumnCount,
                                  admitted: Set(hierarchy), keyColumns: table.keyColumns, navigations: navigations)
        layouts[typeName] = layout
        return layout
    }

    /// - Parameter context: a V4 `@odata.context` to write first (for a single-entity response).
    mutating func write(_ row: Statement, expanded: [ExpandedEntities], context: String? = nil, to writer: inout JSONWriter) throws(ODataError) {
        let concreteType = row.columnType(at: idColumn + 2) == SQLITE_NULL ? table.entityType : (row.text(at: idColumn + 2) ?? table.entityType)
        let layout = layout(for: concreteType)
        let id = row.int(at: idColumn)
        writer.beginObject()
        var entityURI = ""
        if dialect == .v4 {
            if let context {
                writer.writeKey(LocalReader.contextKey)
                writer.writeString(context)
            }
            if row.columnType(at: idColumn + 1) != SQLITE_NULL {
                writer.writeKey(Self.etagKey)
                writer.writeString(utf8: row.textBytes(at: idColumn + 1))
            }
            if concreteType != table.entityType {
                writer.writeKey(Self.typeKey)
                writer.writeString("#" + concreteType)
            }
        } else {
            entityURI = serviceRoot + table.entitySet + V2KeyLiteral.predicate(layout.keyColumns.map { (row.value(at: $0.column), $0.stored) })
            writer.writeKey(Self.metadataKey)
            writer.beginObject()
            writer.writeKey(Self.uriKey)
            writer.writeString(entityURI)
            writer.writeKey(Self.v2TypeKey)
            writer.writeString(concreteType)
            if row.columnType(at: idColumn + 1) != SQLITE_NULL {
                writer.writeKey(Self.v2EtagKey)
                writer.writeString(utf8: row.textBytes(at: idColumn + 1))
            }
            writer.endObject()
        }
        try writeProperties(row, layout.steps, to: &writer)
        for navigation in layout.navigations {
            if let related = expanded.first(where: { $0.name == navigation.name }) {
                related.write(forParent: id, dialect: dialect, to: &writer)
            } else if dialect == .v2, select?.contains(where: { $0.first == navigation.name }) ?? true {
                writer.writeKey(navigation.key)
                writer.beginObject()
                writer.writeKey(Self.deferredKey)
                writer.beginObject()
                writer.writeKey(Self.uriKey)
                writer.writeString(entityURI + "/" + navigation.name)
                writer.endObject()
                writer.endObject()
            }
        }
        writer.endObject()
    }

    func writeProperties(_ row: Statement, _ steps: [EntityLayout.Step], to writer: inout JSONWriter) throws(ODataError) {
        for step in steps {
            switch step {
            case .open(let key):
                writer.writeKey(key)
                writer.beginObject()
            case .close:
                writer.endObject()
            case .value(let column, let key, let stored):
                writer.writeKey(key)
                try Self.writeValue(row, column, stored, dialect: dialect, to: &writer)
            }
        }
    }

    /// One stored value as its JSON property value.
    static func writeValue(_ row: Statement, _ column: Int, _ stored: StoredColumn, dialect: Dialect,
                           to writer: inout JSONWriter) throws(ODataError) {
        let storage = row.columnType(at: column)
        if storage == SQLITE_NULL {
            writer.writeNull()
            return
        }
        switch stored.content {
        case .primitive(let type):
            switch (type, storage) {
            case (.string, SQLITE_TEXT), (.guid, SQLITE_TEXT), (.date, SQLITE_TEXT):
                writer.writeString(utf8: row.textBytes(at: column))
                return
            case (.int16, SQLITE_INTEGER), (.int32, SQLITE_INTEGER), (.byte, SQLITE_INTEGER), (.sByte, SQLITE_INTEGER):
                writer.writeNumber(row.int(at: column))
                return
            case (.int64, SQLITE_INTEGER) where dialect == .v4:
                writer.writeNumber(row.int(at: column))
                return
            case (.boolean, SQLITE_INTEGER):
                writer.writeBool(row.int(at: column) != 0)
                return
            case (.double, SQLITE_FLOAT), (.single, SQLITE_FLOAT):
                let number = row.double(at: column)
                if number.isFinite {
                    try writer.writeNumber(number)
                    return
                }
            default:
                break
            }
        case .enumeration where storage == SQLITE_TEXT:
            writer.writeString(utf8: row.textBytes(at: column))
            return
        case .json where storage == SQLITE_TEXT:
            writer.writeRaw(UnsafeRawBufferPointer(row.textBytes(at: column)))
            return
        default:
            break
        }
        try EDMValueCodec.write(row.value(at: column), column: stored, dialect: dialect, to: &writer)
    }
}
