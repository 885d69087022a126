/// How the store keeps one value of an entity: a primitive property, a leaf of a complex property
/// (complex properties are flattened so `$filter` reaches their fields), or a collection.
package struct StoredColumn: Sendable, Hashable {
    /// What the column holds, which decides its SQL type, its collation and its codec.
    package enum Content: Sendable, Hashable {
        /// One primitive value, in the stored form of ``StorageForm``.
        case primitive(PrimitiveType)
        /// An enum member's name (`Sales`), with the enum's qualified type name.
        case enumeration(typeName: String)
        /// A collection (of primitives, enums or complex values) or a geo value, as JSON text.
        case json
    }

    /// The property path from the entity: `["Address", "City"]`.
    package let path: [String]
    package let content: Content
    /// Whether the model allows null here (a leaf of a nullable complex property is nullable).
    package let isNullable: Bool
    /// `MaxLength` in characters, when the model states a number.
    package let maxLength: Int?
    /// The entity type that declares the property: the set's type, or a type derived from it.
    package let declaringType: String
    /// The property as the model declares it (for a complex leaf: the leaf property).
    package let property: Property
    /// An `Edm.DateTimeOffset` column that keeps each value's offset after its UTC form
    /// (``StoredInstant``), under the `OOD_INSTANT` collation. False in stores made before that.
    package var keepsOffset = false

    /// The property path joined by `/` (identifiers never contain `/`): the column's OData name,
    /// which payloads, request bodies and saved values use. Kept, not computed: a local write asks
    /// for it several times per column.
    package let name: String
    /// The column's name in SQL: ``name``, or `name~2` when an earlier column of the table has the
    /// same name but for case (SQLite compares names without case; OData does not). Only SQL text
    /// uses it, through ``quotedName``.
    package let sqlName: String

    /// `sqlName` defaults to the joined path (``StoreSchema`` gives another to a name that differs
    /// from an earlier one's only in case).
    init(path: [String], content: Content, isNullable: Bool, maxLength: Int?, declaringType: String, property: Property,
         keepsOffset: Bool = false, sqlName: String? = nil) {
        self.keepsOffset = keepsOffset
        self.path = path
        self.name = path.joined(separator: "/")
        self.sqlName = sqlName ?? path.joined(separator: "/")
        self.content = content
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.declaringType = declaringType
        self.property = property
    }

    /// The column's SQL name, quoted for SQL text.
    package var quotedName: String { quoteIdentifier(sqlName) }

    /// The primitive type of a primitive column.
    package var primitiveType: PrimitiveType? {
        if case .primitive(let type) = content { return type }
        return nil
    }

    /// The SQL declaration: type affinity and, for numbers kept as text, the numeric collation.
    package var sqlDeclaration: String {
        switch content {
        case .primitive(.dateTimeOffset) where keepsOffset: "TEXT COLLATE \(SQLFunctions.instantCollation)"
        case .primitive(let type): StorageForm.of(type).sqlDeclaration
        case .enumeration, .json: "TEXT"
        }
    }
}

/// How each primitive type is kept in SQLite, so that SQL comparisons give OData's answers.
package enum StorageForm: Sendable, Equatable {
    /// 64-bit integers: all integer types, and Boolean as 0/1.
    case integer
    /// IEEE doubles: Double and Single.
    case real
    /// Exact decimal text with the `OOD_DECIMAL` collation: Decimal, and Duration as seconds.
    case decimalText
    /// Fixed-width text ordered as its values: dates, instants in UTC, times of day, GUIDs.
    case orderedText
    /// Text compared byte by byte (case-sensitive): String.
    case text
    /// Bytes: Binary.
    case blob
    /// Kept as its JSON text, not comparable in `$filter`: geo types, streams.
    case opaqueJSON

    package static func of(_ type: PrimitiveType) -> StorageForm {
        switch type {
        case .boolean, .byte, .sByte, .int16, .int32, .int64: .integer
        case .double, .single: .real
        case .decimal, .duration: .decimalText
        case .date, .dateTime, .dateTimeOffset, .time, .timeOfDay, .guid: .orderedText
        case .string: .text
        case .binary: .blob
        default: .opaqueJSON
        }
    }

    var sqlDeclaration: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .decimalText: "TEXT COLLATE \(SQLFunctions.decimalCollation)"
        case .orderedText, .text, .opaqueJSON: "TEXT"
        case .blob: "BLOB"
        }
    }
}
