/// How the columns of a query's rows become an entity's JSON members, computed once per query and
/// concrete type: keys escaped beforehand, complex properties re-nested from their flattened
/// columns, columns of other derived types left out.
struct EntityLayout {
    /// One instruction; payloads are plain integers so stepping through them costs no reference counting.
    enum Step {
        /// Opens a nested object named `keys[key]` (a complex property).
        case open(key: Int)
        case close
        /// The value of result column `column`, as member `keys[key]`, of the query's column `stored`.
        case value(column: Int, key: Int, stored: Int, form: ValueForm)
    }

    /// How a stored value reaches JSON, decided once per column and dialect. Every fast form falls
    /// back to `EDMValueCodec` when the row's storage class is not the expected one.
    enum ValueForm {
        /// Text written as a JSON string straight from SQLite's buffer (String, Guid, Date, enums).
        case text
        case integer
        case boolean
        case double
        /// Stored JSON text (collections), written as is.
        case json
        /// V4 DateTimeOffset: canonical UTC text trimmed to ISO 8601 without a copy.
        case instant
        /// V4 Decimal without a fixed scale: the exact stored text as a JSON number.
        case decimal
        /// Everything else goes through `EDMValueCodec`.
        case codec
    }

    let typeName: String
    let steps: [Step]
    let keys: [JSONWriter.EncodedKey]
    /// Every key of ``keys``, escaped, one after another; key `i` is `keyText[keyBounds[i]]`. The
    /// row writer reads keys from here through one pointer, so writing a member retains nothing
    /// (a key taken out of ``keys`` is an array: a retain and a release per value).
    let keyText: [UInt8]
    let keyBounds: [Range<Int>]
    /// Key columns in key order, as result column indexes, for V2 `__metadata.uri`.
    let keyColumns: [(column: Int, stored: StoredColumn)]
    /// Navigation properties of the concrete type, in declaration order.
    let navigations: [(name: String, key: JSONWriter.EncodedKey)]

    /// - Parameters:
    ///   - columns: the stored columns of the query, which start at result column `firstColumn`.
    ///   - admitted: the concrete type and its ancestors; columns declared elsewhere are skipped.
    ///   - stripping: a property path prefix removed from every column (for a complex property read).
    init(typeName: String, columns: [StoredColumn], firstColumn: Int, admitted: Set<String>, keyColumns: [StoredColumn],
         navigations: [String], dialect: Dialect, stripping prefix: [String] = []) {
        self.typeName = typeName
        var steps: [Step] = []
        var keys: [JSONWriter.EncodedKey] = []
        func key(_ name: String) -> Int {
            keys.append(JSONWriter.EncodedKey(name))
            return keys.count - 1
        }
        var open: [String] = []
        for (index, column) in columns.enumerated() where admitted.contains(column.declaringType) && column.path.starts(with: prefix) {
            let path = Array(column.path.dropFirst(prefix.count))
            guard let leaf = path.last else { continue }
            let parents = Array(path.dropLast())
            var shared = 0
            while shared < open.count && shared < parents.count && open[shared] == parents[shared] { shared += 1 }
            while open.count > shared {
                steps.append(.close)
                open.removeLast()
            }
            while open.count < parents.count {
                let name = parents[open.count]
                steps.append(.open(key: key(name)))
                open.append(name)
            }
            steps.append(.value(column: firstColumn + index, key: key(leaf), stored: index, form: Self.form(of: column, dialect)))
        }
        for _ in open { steps.append(.close) }
        self.steps = steps
        self.keys = keys
        var text: [UInt8] = [], bounds: [Range<Int>] = []
        for key in keys {
            bounds.append(text.count..<text.count + key.bytes.count)
            text += key.bytes
        }
        keyText = text
        keyBounds = bounds
        self.keyColumns = keyColumns.compactMap { key in
            columns.firstIndex(of: key).map { (column: firstColumn + $0, stored: key) }
        }
        self.navigations = navigations.map { (name: $0, key: JSONWriter.EncodedKey($0)) }
    }

    static func form(of column: StoredColumn, _ dialect: Dialect) -> ValueForm {
        switch column.content {
        case .enumeration: return .text
        case .json: return .json
        case .primitive(let type):
            switch type {
            case .string, .guid, .date: return .text
            case .byte, .sByte, .int16, .int32: return .integer
            case .int64: return dialect == .v4 ? .integer : .codec
            case .boolean: return .boolean
            case .double, .single: return .double
            case .dateTimeOffset, .dateTime: return dialect == .v4 ? .instant : .codec
            case .decimal:
                if case .digits = column.property.facets.scale { return .codec }
                return dialect == .v4 ? .decimal : .codec
            default: return .codec
            }
        }
    }
}
