/// One SQL statement with its bound parameters, as the translator produced it.
///
/// Every value of the request is a parameter (`?1`, `?2`, ...; a number may be used more than once
/// in the text); identifiers come only from the store schema, quoted. The result columns are
/// `_ood_id`, `_ood_etag`, `_ood_type`, `_ood_change`, `_ood_error` (the system columns), then ``columns`` in order (an expand query has the parent's
/// `_ood_id` first, see ``leadingColumns``).
struct SQLQuery {
    var sql: String
    var parameters: [SQLValue]
    /// The entity set table the rows come from.
    var table: EntitySetTable
    /// The stored columns selected after the system columns.
    var columns: [StoredColumn]
    /// How many columns precede `_ood_id` (1 for an expand query: the parent's `_ood_id`).
    var leadingColumns: Int = 0
    /// For an expand query: the index in ``parameters`` of the first parent `_ood_id` placeholder.
    var parentIDStart: Int = 0

    /// The system columns every entity row of a response starts with, in this order.
    static let systemColumns = ["_ood_id", "_ood_etag", "_ood_type", "_ood_change", "_ood_error"]
    static let systemColumnCount = systemColumns.count
}

/// What the store runs for a read, for an explain call: the SQL text and its parameters shown as
/// SQL literals (for reading only; the statement itself binds them).
public struct ReadExplanation: Sendable, Equatable, CustomStringConvertible {
    public var sql: String
    public var parameters: [String]
    /// The statement that counts the result, when the read asks for a count.
    public var countSQL: String?

    public var description: String {
        var text = sql
        if !parameters.isEmpty { text += "\n-- parameters: " + parameters.enumerated().map { "?\($0.offset + 1)=\($0.element)" }.joined(separator: ", ") }
        if let countSQL { text += "\n-- count: " + countSQL }
        return text
    }
}

extension SQLValue {
    /// The value as an SQL literal, for explanations only (never executed).
    var explained: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .blob(let bytes): "X'" + bytes.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined() + "'"
        }
    }
}
