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

    /// Above this many parameters (256) a statement's placeholders are made anonymous, see
    /// ``makePlaceholdersAnonymous()``.
    static let anonymousPlaceholderThreshold = 256

    /// Rewrites every `?N` as `?` and lists the values in the order the placeholders appear in the
    /// text (a number used twice becomes two parameters), in one pass over the text.
    ///
    /// SQLite looks up the name of each numbered placeholder in a list as long as the statement's
    /// placeholders when it compiles the statement, so compiling n of them takes time in n²: 40,000
    /// took seconds. Anonymous placeholders cost nothing. The translator writes only `?N`
    /// placeholders, quoted identifiers (`"..."`) and quoted constants (`'...'`), which the scan
    /// skips. Not for expand queries, whose parent ids are bound by their index.
    mutating func makePlaceholdersAnonymous() throws(ODataError) {
        let text = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var values: [SQLValue] = []
        values.reserveCapacity(parameters.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // A quoted constant or identifier, its quote doubled inside: copied as it is.
                var end = index + 1
                while end < text.count {
                    if text[end] == byte {
                        if end + 1 < text.count && text[end + 1] == byte { end += 2; continue }
                        break
                    }
                    end += 1
                }
                end = min(end + 1, text.count)
                out.append(contentsOf: text[index..<end])
                index = end
                continue
            }
            if byte == UInt8(ascii: "?") {
                var end = index + 1
                var number = 0
                while end < text.count, text[end] >= UInt8(ascii: "0"), text[end] <= UInt8(ascii: "9"), number <= Int(Int32.max) / 10 {
                    number = number * 10 + Int(text[end] - UInt8(ascii: "0"))
                    end += 1
                }
                guard number >= 1, number <= parameters.count else {
                    throw ODataError(.internalError, "the SQL text has a placeholder without a parameter")
                }
                values.append(parameters[number - 1])
                out.append(byte)
                index = end
                continue
            }
            out.append(byte)
            index += 1
        }
        sql = String(decoding: out, as: UTF8.self)
        parameters = values
    }

    /// The system columns every entity row of a response starts with, in this order.
    static let systemColumns = ["_ood_id", "_ood_etag", "_ood_type", "_ood_change", "_ood_error"]
    static let systemColumnCount = systemColumns.count
}

/// What the store runs for a read, for an explain call: the SQL text and its parameters shown as
/// SQL literals (for reading only; the statement itself binds them).
package struct ReadExplanation: Sendable, Equatable, CustomStringConvertible {
    package var sql: String
    package var parameters: [String]
    /// The statement that counts the result, when the read asks for a count.
    package var countSQL: String?

    package var description: String {
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
