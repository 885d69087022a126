/// A key predicate in a dialect's URL literal form (`(1)`, `('A''s')`, `(OrderID=1,Item=2)`),
/// for rewriting queued URLs with the key a service assigned.
enum KeyPredicateText {
    static func predicate(_ values: [(value: SQLValue, column: StoredColumn)], dialect: Dialect) -> String {
        if dialect == .v2 { return V2KeyLiteral.predicate(values) }
        if values.count == 1, let only = values.first { return "(" + v4Literal(only.value, only.column) + ")" }
        return "(" + values.map { $0.column.name + "=" + v4Literal($0.value, $0.column) }.joined(separator: ",") + ")"
    }

    /// V4 literals: numbers, Guids, dates and times bare; strings quoted, `'` doubled.
    static func v4Literal(_ value: SQLValue, _ column: StoredColumn) -> String {
        switch value {
        case .null:
            return "null"
        case .integer(let number):
            return column.primitiveType == .boolean ? (number != 0 ? "true" : "false") : String(number)
        case .real(let number):
            return "\(number)"
        case .text(let text):
            switch column.primitiveType {
            case .dateTimeOffset?:
                return V2KeyLiteral.percentEncoded(String(StoredInstant.utcPart(text)))
            case .guid?, .decimal?, .date?, .timeOfDay?:
                return V2KeyLiteral.percentEncoded(text)
            default:
                return V2KeyLiteral.quoted(text)
            }
        case .blob(let bytes):
            return "binary'" + Base64Codec.encode(bytes, urlSafe: true) + "'"
        }
    }
}
