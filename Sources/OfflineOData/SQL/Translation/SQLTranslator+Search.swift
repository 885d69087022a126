/// `$search` in SQL (``BoundSearch``): a term is `instr` over each string column of the set's
/// table, both sides lowercased by `ood_lower` (Unicode), the term a bound parameter used once
/// per column; a null column does not contain it. `AND`/`OR` chains are joined flat, as `$filter`'s.
extension SQLTranslator {
    /// The deepest nesting of `NOT` and alternating `AND`/`OR` (parentheses in the search)
    /// translated: SQLite's parser stack holds about 50 nested parentheses.
    static let maxSearchNesting = 24

    mutating func searchSQL(_ search: BoundSearch, alias: String, table: EntitySetTable) throws(ODataError) -> String {
        let columns = table.columns.filter { $0.primitiveType == .string }
        return try searchSQL(search, columns: columns, alias: alias, depth: 0)
    }

    private mutating func searchSQL(_ search: BoundSearch, columns: [StoredColumn], alias: String, depth: Int) throws(ODataError) -> String {
        guard depth <= Self.maxSearchNesting else {
            throw ODataError(.unsupported, "unsupported: $search is nested deeper than the offline store's limit of \(Self.maxSearchNesting) levels")
        }
        switch search {
        case .term(let text):
            let needle = parameters.add(SQLValue.text(text))
            guard !columns.isEmpty else { return "(\(needle) IS NULL)" }
            let tests = columns.map { "instr(ood_lower(\(alias).\($0.quotedName)), \(needle)) > 0" }
            return "coalesce(" + tests.joined(separator: " OR ") + ", 0)"
        case .not(let inner):
            return "(NOT \(try searchSQL(inner, columns: columns, alias: alias, depth: depth + 1)))"
        case .and, .or:
            let isAnd: Bool
            if case .and = search { isAnd = true } else { isAnd = false }
            // The chain's operands, left to right, gathered without recursing along it.
            var operands: [BoundSearch] = []
            var pending = [search]
            while let node = pending.popLast() {
                switch node {
                case .and(let a, let b) where isAnd: pending.append(b); pending.append(a)
                case .or(let a, let b) where !isAnd: pending.append(b); pending.append(a)
                default: operands.append(node)
                }
            }
            var terms: [String] = []
            for operand in operands { terms.append(try searchSQL(operand, columns: columns, alias: alias, depth: depth + 1)) }
            return "(" + terms.joined(separator: isAnd ? " AND " : " OR ") + ")"
        }
    }
}
