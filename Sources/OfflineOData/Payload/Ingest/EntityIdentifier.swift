/// An entity's identity as payloads write it (V4 `@odata.id`/`@id`, the `id` of a 4.0
/// `$deletedEntity`, V2 `__metadata.uri`): `Customers('ALFKI')`, `http://host/svc/Rooms('3')`,
/// `Orders(OrderID=1,Line=2)`.
///
/// Read leniently, because ids are only used to find the key of an entity whose payload does not
/// carry its key properties (deleted entries, delta entries): percent escapes are decoded, V2
/// typed literals (`datetime'…'`, `guid'…'`, `12L`, `1.5M`) are unwrapped, mock-sap's
/// `datetime'/Date(ms)/'` is accepted, and anything after the last key predicate is ignored.
/// Each key value is kept as text; ``EDMValueCodec`` turns it into the column's stored value.
struct EntityIdentifier: Equatable {
    /// The last path segment's name before the key predicate (`Customers`).
    var entitySet: String
    /// The key values in the order written; `name` is nil for the single-key short form.
    var keyValues: [(name: String?, text: String)]

    static func == (lhs: EntityIdentifier, rhs: EntityIdentifier) -> Bool {
        lhs.entitySet == rhs.entitySet && lhs.keyValues.elementsEqual(rhs.keyValues) { $0.name == $1.name && $0.text == $1.text }
    }

    /// Nil when `text` has no key predicate `(...)`.
    init?(_ text: String) {
        let bytes = percentDecoded(Array(text.utf8))
        // The last parenthesised group outside quotes is the key predicate.
        var inQuote = false
        var depth = 0
        var groupStart: Int?
        var lastGroup: Range<Int>?
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "'") { inQuote.toggle(); continue }
            guard !inQuote else { continue }
            if byte == UInt8(ascii: "?") && depth == 0 { break }
            if byte == UInt8(ascii: "(") {
                if depth == 0 { groupStart = index }
                depth += 1
            } else if byte == UInt8(ascii: ")"), depth > 0 {
                depth -= 1
                if depth == 0, let start = groupStart { lastGroup = start..<index }
            }
        }
        guard let group = lastGroup else { return nil }
        var nameStart = group.lowerBound
        while nameStart > 0 && bytes[nameStart - 1] != UInt8(ascii: "/") { nameStart -= 1 }
        entitySet = String(decoding: bytes[nameStart..<group.lowerBound], as: UTF8.self)
        var values: [(name: String?, text: String)] = []
        for part in Self.splitOutsideQuotes(bytes[(group.lowerBound + 1)..<group.upperBound]) {
            var name: String?
            var literal = part
            if let equals = Self.indexOutsideQuotes(of: UInt8(ascii: "="), in: part) {
                name = String(decoding: part[part.startIndex..<equals], as: UTF8.self)
                literal = part[(equals + 1)...]
            }
            values.append((name, Self.literalText(literal)))
        }
        guard !values.isEmpty else { return nil }
        keyValues = values
    }

    private static func splitOutsideQuotes(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var inQuote = false
        var start = bytes.startIndex
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") { inQuote.toggle() }
            if byte == UInt8(ascii: ","), !inQuote {
                parts.append(bytes[start..<index])
                start = index + 1
            }
        }
        parts.append(bytes[start..<bytes.endIndex])
        return parts.filter { !$0.isEmpty }
    }

    private static func indexOutsideQuotes(of target: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        var inQuote = false
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") { inQuote.toggle() }
            if byte == target, !inQuote { return index }
        }
        return nil
    }

    /// The value inside a literal: `'a''b'` → `a'b`, `datetime'…'` → `…`, `12L` → `12`.
    private static func literalText(_ literal: ArraySlice<UInt8>) -> String {
        if let open = literal.firstIndex(of: UInt8(ascii: "'")), let close = literal.lastIndex(of: UInt8(ascii: "'")), close > open {
            var output: [UInt8] = []
            var index = open + 1
            while index < close {
                let byte = literal[index]
                output.append(byte)
                // A doubled quote stands for one.
                index += byte == UInt8(ascii: "'") && index + 1 < close && literal[index + 1] == UInt8(ascii: "'") ? 2 : 1
            }
            return String(decoding: output, as: UTF8.self)
        }
        var text = literal
        if let last = text.last, text.count > 1, "LlMmDdFf".utf8.contains(last),
           let first = text.first, first == UInt8(ascii: "-") || (first >= 48 && first <= 57) {
            text = text.dropLast()
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// `%XX` escapes decoded; malformed escapes are kept as written.
private func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
    func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
            output.append(high << 4 | low)
            index += 3
        } else {
            output.append(byte)
            index += 1
        }
    }
    return output
}
