/// The tables of a store, derived from its `$metadata`: one ``EntitySetTable`` per entity set of
/// the default entity container.
///
/// Decisions, for the next engineer:
/// - Complex properties are flattened into one column per leaf (`Address/City`), so `$filter`
///   and `$orderby` reach their fields; nesting deeper than ``maximumComplexDepth`` and complex
///   types that contain themselves are kept as JSON instead.
/// - Collections, geo values and untyped values are kept as JSON text.
/// - An entity set also holds entities of types derived from its type, so its table has the
///   columns of those types too; a name two derived types both declare keeps the first one's column.
/// - SQLite compares column names without case, OData does not: a column whose name differs from
///   an earlier one's only in case (`Name`, `name`; `Address/City`, `address/city`; a system column)
///   gets the SQL name `name~2` (``StoredColumn/sqlName``), in declaration order so every open
///   names it alike; its OData name stays. Tables without such names keep their names as they were.
/// - Stream properties and media resources are not stored (the offline store has no media).
/// - An entity type without a usable key (real documents have them) gives a table without a key
///   index: its entities are read as a collection and cannot be addressed by key.
@_spi(Tool) public struct StoreSchema: Sendable {
    @_spi(Tool) public let tables: [EntitySetTable]
    /// The model the tables come from (the upload asks it, say, which sets take repeatable requests).
    let model: MetadataModel
    private let tablesByEntitySet: [String: EntitySetTable]

    static let maximumComplexDepth = 8
    /// `ood_store_info` key, "1" in stores whose DateTimeOffset columns keep offsets.
    static let instantOffsetsKey = "instant_offsets"
    static let reservedPrefix = "_ood_"

    /// Maps every entity set of `model`'s default container to a table.
    ///
    /// - Parameter keepingInstantOffsets: DateTimeOffset columns keep each value's offset
    ///   (``StoredColumn/keepsOffset``); false for stores made before that form.
    /// - Throws: ``ODataError/Code/metadata`` when the model has no entity container, or a
    ///   property uses the reserved prefix `_ood_`.
    package init(model: MetadataModel, keepingInstantOffsets: Bool = true) throws(ODataError) {
        guard let container = model.entityContainer else {
            throw ODataError(.metadata, "the $metadata document has no entity container, so there is nothing to store")
        }
        var tables: [EntitySetTable] = []
        // SQLite compares names without case: sets whose names differ only in case get tables of
        // their own (`es/Orders`, `es/orders~2`), in container order, so every open names them alike.
        var taken: Set<String> = []
        for entitySet in container.entitySets {
            guard let type = model.entityType(named: entitySet.entityType) else {
                throw ODataError(.metadata, "entity set '\(entitySet.name)' names the unknown type '\(entitySet.entityType)'")
            }
            var tableName = "es/" + entitySet.name
            var suffix = 2
            while taken.contains(asciiLowercased(tableName)) {
                tableName = "es/\(entitySet.name)~\(suffix)"
                suffix += 1
            }
            taken.insert(asciiLowercased(tableName))
            tables.append(try Self.table(for: entitySet, of: type, in: model, tableName: tableName,
                                         keepingInstantOffsets: keepingInstantOffsets))
        }
        self.tables = tables
        self.model = model
        var byName: [String: EntitySetTable] = [:]
        for table in tables { byName[table.entitySet] = table }
        tablesByEntitySet = byName
    }

    package func table(forEntitySet name: String) -> EntitySetTable? { tablesByEntitySet[name] }

    /// `CREATE TABLE IF NOT EXISTS` statements for every table and index.
    var createStatements: [String] { tables.flatMap(\.createStatements) }

    // MARK: - Building

    private static func table(for entitySet: EntitySet, of type: EntityType, in model: MetadataModel, tableName: String,
                              keepingInstantOffsets: Bool) throws(ODataError) -> EntitySetTable {
        var builder = ColumnBuilder(model: model, keepingInstantOffsets: keepingInstantOffsets)
        for property in model.properties(of: type) {
            try builder.add(property, declaredBy: type.qualifiedName)
        }
        // Types derived from the set's type add their own properties.
        for schema in model.schemas {
            for derived in schema.entityTypes where derived.qualifiedName != type.qualifiedName
                && model.entityType(derived, isOrDerivesFrom: type.qualifiedName) {
                for property in derived.properties {
                    try builder.add(property, declaredBy: derived.qualifiedName)
                }
            }
        }
        let columns = builder.columns
        var byName: [String: StoredColumn] = [:]
        for column in columns { byName[column.name] = column }
        let keyColumns = model.key(of: type).compactMap { byName[$0.name] }
        var foreignKeys: [StoredColumn] = []
        for navigation in model.navigationProperties(of: type) {
            for constraint in navigation.referentialConstraints {
                if let column = byName[constraint.property], !foreignKeys.contains(column) { foreignKeys.append(column) }
            }
        }
        // A type without a usable key (lenient reading keeps such documents) still gets a table:
        // its entities can be read as a collection, never addressed by key.
        let usableKey = keyColumns.count == model.key(of: type).count ? keyColumns : []
        return EntitySetTable(entitySet: entitySet.name, tableName: tableName, entityType: type.qualifiedName, columns: columns,
                              keyColumns: usableKey, foreignKeyColumns: foreignKeys)
    }
}

/// Collects the stored columns of an entity type, flattening complex properties.
private struct ColumnBuilder {
    let model: MetadataModel
    private(set) var columns: [StoredColumn] = []
    private var names: Set<String> = []
    /// The SQL names given so far, lowercased (SQLite's comparison), the system columns' among them.
    private var sqlNamesTaken = Set(SQLQuery.systemColumns.map(asciiLowercased))
    private let keepingInstantOffsets: Bool

    init(model: MetadataModel, keepingInstantOffsets: Bool) {
        self.model = model
        self.keepingInstantOffsets = keepingInstantOffsets
    }

    mutating func add(_ property: Property, declaredBy type: String) throws(ODataError) {
        guard !property.name.hasPrefix(StoreSchema.reservedPrefix) else {
            throw ODataError(.metadata, "property '\(property.name)' of '\(type)' uses the prefix '_ood_', which the store reserves")
        }
        add(property, path: [property.name], nullable: property.isNullable, declaredBy: type, depth: 0, visiting: [])
    }

    private mutating func add(_ property: Property, path: [String], nullable: Bool, declaredBy type: String,
                              depth: Int, visiting: Set<String>) {
        let reference = property.type
        let content: StoredColumn.Content
        if reference.isCollection {
            content = .json
        } else {
            switch reference.kind {
            case .primitive(let primitive), .definition(let primitive):
                guard primitive != .stream else { return }
                content = .primitive(primitive)
            case .enumeration:
                content = .enumeration(typeName: reference.name)
            case .complex:
                if depth < StoreSchema.maximumComplexDepth, !visiting.contains(reference.name),
                   let complex = model.complexType(named: reference.name) {
                    for member in model.typeHierarchy(of: complex).reversed().flatMap(\.properties) {
                        add(member, path: path + [member.name], nullable: nullable || member.isNullable,
                            declaredBy: type, depth: depth + 1, visiting: visiting.union([reference.name]))
                    }
                    return
                }
                content = .json
            default:
                content = .json
            }
        }
        let name = path.joined(separator: "/")
        guard names.insert(name).inserted else { return }
        var maxLength: Int?
        if case .length(let length) = property.facets.maxLength { maxLength = length }
        columns.append(StoredColumn(path: path, content: content, isNullable: nullable, maxLength: maxLength,
                                    declaringType: type, property: property,
                                    keepsOffset: keepingInstantOffsets && content == .primitive(.dateTimeOffset),
                                    sqlName: takeSQLName(for: name)))
    }

    /// `name`, or `name~2`, `name~3`, ... when SQLite would take it for a name already given.
    private mutating func takeSQLName(for name: String) -> String {
        var sqlName = name
        var suffix = 2
        while sqlNamesTaken.contains(asciiLowercased(sqlName)) {
            sqlName = "\(name)~\(suffix)"
            suffix += 1
        }
        sqlNamesTaken.insert(asciiLowercased(sqlName))
        return sqlName
    }
}
