/// Key values in V2 URL literal form, for `__metadata.uri` and `__deferred` links:
/// `Set(1)`, `Set('O''Neil')`, `Set(OrderID=1,Item=2L)`, `guid'…'`, `datetime'…'`, `1.5M`.
enum V2KeyLiteral {
    static func predicate(_ values: [(value: SQLValue, column: StoredColumn)]) -> String {
        if values.count == 1, let only = values.first { return "(" + literal(only.value, only.column) + ")" }
        return "(" + values.map { $0.column.name + "=" + literal($0.value, $0.column) }.joined(separator: ",") + ")"
    }

    static func literal(_ value: SQLValue, _ column: StoredColumn) -> String {
        let type = column.primitiveType
        switch value {
        case .null:
            return "null"
        case .integer(let number):
            switch type {
            case .int64?: return "\(number)L"
            case .boolean?: return number != 0 ? "true" : "false"
            case .decimal?: return "\(number)M"
            case .double?: return "\(number)d"
            case .single?: return "\(number)f"
            default: return String(number)
            }
        case .real(let number):
            return type == .single ? "\(number)f" : "\(number)d"
        case .text(let text):
            switch type {
            case .guid?: return "guid'\(text)'"
            case .decimal?: return "\(text)M"
            case .dateTime?: return "datetime'\(text.hasSuffix("Z") ? String(text.dropLast()) : text)'"
            case .dateTimeOffset?: return "datetimeoffset'\(StoredInstant.utcPart(text))'"
            case .duration?: return "time'\(DurationValue(seconds: ExactDecimal(text) ?? .zero).isoText)'"
            case .time?: return "time'\(text)'"
            default: return quoted(text)
            }
        case .blob(let bytes):
            let digits = Array("0123456789ABCDEF")
            return "X'" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + "'"
        }
    }

    /// A string literal, the same in both dialects: quoted, `'` doubled, percent-encoded.
    static func quoted(_ text: String) -> String {
        "'" + percentEncoded(text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")) + "'"
    }

    /// Percent-encodes what may not stand in a path segment (RFC 3986 pchar).
    static func percentEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            let safe = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || "-._~!$&'()*+,;=:@".utf8.contains(byte)
            if safe {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
