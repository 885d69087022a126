/// How the columns of a query's rows become an entity's JSON members, computed once per query and
/// concrete type: keys escaped beforehand, complex properties re-nested from their flattened
/// columns, columns of other derived types left out.
struct EntityLayout {
    enum Step {
        case open(JSONWriter.EncodedKey)
        case close
        /// The value of result column `column` (an index into the row), as member `key`.
        case value(column: Int, key: JSONWriter.EncodedKey, stored: StoredColumn)
    }

    let typeName: String
    let steps: [Step]
    /// Key columns in key order, as result column indexes, for V2 `__metadata.uri`.
    let keyColumns: [(column: Int, stored: StoredColumn)]
    /// Navigation properties of the concrete type, in declaration order.
    let navigations: [(name: String, key: JSONWriter.EncodedKey)]

    /// - Parameters:
    ///   - columns: the stored columns of the query, which start at result column `firstColumn`.
    ///   - admitted: the concrete type and its ancestors; columns declared elsewhere are skipped.
    ///   - stripping: a property path prefix removed from every column (for a complex property read).
    init(typeName: String, columns: [StoredColumn], firstColumn: Int, admitted: Set<String>, keyColumns: [StoredColumn],
         navigations: [String], stripping prefix: [String] = []) {
        self.typeName = typeName
        var steps: [Step] = []
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
                steps.append(.open(JSONWriter.EncodedKey(name)))
                open.append(name)
            }
            steps.append(.value(column: firstColumn + index, key: JSONWriter.EncodedKey(leaf), stored: column))
        }
        for _ in open { steps.append(.close) }
        self.steps = steps
        self.keyColumns = keyColumns.compactMap { key in
            columns.firstIndex(of: key).map { (column: firstColumn + $0, stored: key) }
        }
        self.navigations = navigations.map { (name: $0, key: JSONWriter.EncodedKey($0)) }
    }
}
