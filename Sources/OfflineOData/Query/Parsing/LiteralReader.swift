/// Turns literal tokens into ``LiteralSyntax`` values: unescapes strings, converts numbers with
/// overflow checks, decodes binary, and applies the dialect's literal rules.
enum LiteralReader {
    /// The literal a token denotes, or nil when the token is not a literal (a plain name).
    static func literal(_ token: Token, in text: DecodedText, dialect: Dialect) throws(ODataError) -> LiteralSyntax? {
        if token.kind == .name && !Keyword.mayBeLiteralName(text, token.start, token.end) { return nil }
        let raw = text.string(token.start, token.end)
        let range = text.range(token.start, token.end)
        let kind: LiteralSyntax.Kind
        switch token.kind {
        case .string:
            kind = .string(unescape(text, token.start + 1, token.end - 1))
        case .jsonString:
            kind = .string(try unescapeJSON(text, token.start + 1, token.end - 1))
        case .number:
            kind = try number(raw, token: token, in: text, dialect: dialect)
        case .date: kind = .date(raw)
        case .dateTimeOffset: kind = .dateTimeOffset(raw)
        case .timeOfDay: kind = .timeOfDay(raw)
        case .guid: kind = .guid(raw)
        case .prefixedString:
            kind = try prefixed(token, in: text, dialect: dialect)
        case .name:
            let packed = Keyword.packLowercased(text, token.start, token.end)
            if packed == Keyword.pack("null") {
                kind = .null
            } else if packed == Keyword.pack("true") {
                kind = .boolean(true)
            } else if packed == Keyword.pack("false") {
                kind = .boolean(false)
            } else if raw == "INF" {
                kind = .double(.infinity)
            } else if raw == "NaN" {
                kind = .double(.nan)
            } else {
                return nil
            }
        default:
            return nil
        }
        return LiteralSyntax(kind: kind, text: raw, range: range)
    }

    /// `'O''Neil'` content to `O'Neil`.
    static func unescape(_ text: DecodedText, _ start: Int, _ end: Int) -> String {
        if text.firstIndex(of: UInt8(ascii: "'"), from: start, before: end) == nil { return text.string(start, end) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(0, end - start))
        var index = start
        while index < end {
            let byte = text.byte(index)
            bytes.append(byte)
            index += byte == UInt8(ascii: "'") && text.byte(index + 1) == UInt8(ascii: "'") ? 2 : 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// JSON string content with its backslash escapes resolved.
    static func unescapeJSON(_ text: DecodedText, _ start: Int, _ end: Int) throws(ODataError) -> String {
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll(keepingCapacity: true)
        }
        var index = start
        while index < end {
            let byte = text.byte(index)
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escaped = text.byte(index + 1)
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escaped)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var value: UInt32 = 0
                for offset in 0..<4 {
                    guard let digit = hexValue(text.byte(index + offset)), index + offset < end else {
                        throw text.error("four hexadecimal digits expected after \\u", at: index + offset)
                    }
                    value = value << 4 | UInt32(digit)
                }
                index += 4
                flush()
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            default:
                throw text.error("invalid escape in a JSON string", at: index - 1)
            }
        }
        flush()
        return String(scalars)
    }

    private static func lowercased(_ text: String) -> String {
        String(decoding: text.utf8.map(ByteClass.lower), as: UTF8.self)
    }

    private static func number(_ raw: String, token: Token, in text: DecodedText, dialect: Dialect) throws(ODataError) -> LiteralSyntax.Kind {
        // The length first: a number token is ASCII, so only four bytes can spell -INF.
        if token.end - token.start == 4 && raw == "-INF" { return .double(-.infinity) }
        var bodyEnd = token.end
        var suffix: UInt8 = 0
        if bodyEnd > token.start, ByteClass.isIdentifierStart(text.byte(bodyEnd - 1)) {
            suffix = ByteClass.lower(text.byte(bodyEnd - 1))
            bodyEnd -= 1
        }
        var hasPoint = false
        var hasExponent = false
        for index in token.start..<bodyEnd {
            let byte = text.byte(index)
            if byte == UInt8(ascii: ".") { hasPoint = true }
            if ByteClass.lower(byte) == UInt8(ascii: "e") { hasExponent = true }
        }
        let bodyText = bodyEnd == token.end ? raw : text.string(token.start, bodyEnd)
        switch suffix {
        case UInt8(ascii: "m"):
            return .decimal(normalizedDecimal(bodyText))
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            guard let value = Double(bodyText) else { throw text.error("malformed floating-point literal", at: token.start) }
            return suffix == UInt8(ascii: "d") ? .double(value) : .single(value)
        case UInt8(ascii: "l"):
            guard !hasPoint && !hasExponent else { throw text.error("an L literal must be an integer", at: token.start) }
            guard let value = integer(text, token.start, bodyEnd) else { throw text.error("integer literal out of the Int64 range", at: token.start) }
            return .int64(value)
        default:
            break
        }
        if hasExponent {
            guard let value = Double(bodyText) else { throw text.error("malformed floating-point literal", at: token.start) }
            return .double(value)
        }
        if hasPoint { return .decimal(normalizedDecimal(bodyText)) }
        if let value = integer(text, token.start, bodyEnd) { return .integer(value) }
        if dialect == .v2 {
            throw text.error("integer literal out of the Int64 range; V2 writes large numbers with the M suffix", at: token.start)
        }
        // V4: an integer beyond Int64 is a decimalValue in the ABNF.
        return .decimal(normalizedDecimal(bodyText))
    }

    /// Exact decimal text: the sign kept only when negative, digits and point as written.
    private static func normalizedDecimal(_ body: String) -> String {
        body.utf8.first == UInt8(ascii: "+") ? String(body.dropFirst()) : body
    }

    /// Decimal digits (with an optional sign) of `text[start..<end]` as Int64, nil on overflow.
    static func integer(_ text: DecodedText, _ start: Int, _ end: Int) -> Int64? {
        var index = start
        var negative = false
        let first = text.byte(index)
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index += 1
        }
        guard index < end else { return nil }
        var value: Int64 = 0
        while index < end {
            let byte = text.byte(index)
            guard ByteClass.isDigit(byte) else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// Optional sign and decimal digits to Int64, nil on overflow. Overflow-reporting arithmetic
    /// throughout; negative numbers accumulate downwards so Int64.min is representable.
    static func integer(_ body: [UInt8]) -> Int64? {
        var index = 0
        var negative = false
        if let first = body.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < body.count else { return nil }
        var value: Int64 = 0
        while index < body.count {
            let byte = body[index]
            guard ByteClass.isDigit(byte) else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    private static func prefixed(_ token: Token, in text: DecodedText, dialect: Dialect) throws(ODataError) -> LiteralSyntax.Kind {
        var quote = token.start
        while quote < token.end && text.byte(quote) != UInt8(ascii: "'") { quote += 1 }
        let prefix = text.string(token.start, quote)
        let lowerPrefix = lowercased(prefix)
        let contentStart = quote + 1
        let contentEnd = token.end - 1
        let content = unescape(text, contentStart, contentEnd)
        let scanner = TemporalScanner(text: text, end: contentEnd)
        func requireWhole(_ scannedEnd: Int) throws(ODataError) {
            if scannedEnd != contentEnd { throw text.error("unexpected character in the literal", at: scannedEnd) }
        }
        if prefix.utf8.contains(UInt8(ascii: ".")) {
            if lowerPrefix.hasPrefix("geo.") || lowerPrefix == "geography" || lowerPrefix == "geometry" {
                throw ODataError(.unsupported, "unsupported: geospatial literals are not implemented", offset: text.origin(token.start))
            }
            guard dialect == .v4 else { throw text.error("enumeration literals are OData V4 syntax", at: token.start) }
            return .enumeration(typeName: prefix, value: content)
        }
        switch (lowerPrefix, dialect) {
        case ("geography", _), ("geometry", _):
            throw ODataError(.unsupported, "unsupported: geospatial literals are not implemented", offset: text.origin(token.start))
        case ("duration", .v4):
            try requireWhole(try DurationScanner(text: text, end: contentEnd).scan(from: contentStart))
            return .duration(content)
        case ("binary", .v4):
            guard contentStart <= contentEnd, contentEnd <= text.count,
                  let bytes = Base64Codec.decode(text.slice(contentStart, contentEnd)) else {
                throw text.error("malformed base64url in binary literal", at: contentStart)
            }
            return .binary(bytes)
        case ("binary", .v2), ("x", .v2):
            guard let bytes = hexBytes(text, contentStart, contentEnd) else {
                throw text.error("malformed hexadecimal in binary literal", at: contentStart)
            }
            return .binary(bytes)
        case ("datetime", .v2):
            var index = try scanner.scanDate(from: contentStart)
            guard ByteClass.lower(text.byte(index)) == UInt8(ascii: "t") else { throw text.error("'T' expected", at: index) }
            index = try scanner.scanTimeOfDay(from: index + 1, allowLeapSecond: false)
            try requireWhole(index)
            return .dateTime(content)
        case ("datetimeoffset", .v2):
            try requireWhole(try scanner.scanDateTimeOffset(from: contentStart))
            return .dateTimeOffset(content)
        case ("time", .v2):
            try requireWhole(try DurationScanner(text: text, end: contentEnd).scan(from: contentStart))
            return .duration(content)
        case ("guid", .v2):
            try requireWhole(try scanner.scanGuid(from: contentStart))
            return .guid(content)
        case ("datetime", .v4), ("datetimeoffset", .v4), ("time", .v4), ("guid", .v4), ("x", .v4):
            throw text.error("\(prefix)'...' is OData V2 syntax; V4 writes the value without prefix", at: token.start)
        case ("duration", .v2):
            throw text.error("duration'...' is OData V4 syntax; V2 writes time'...'", at: token.start)
        default:
            throw text.error("unknown literal prefix '\(prefix)'", at: token.start)
        }
    }

    private static func hexBytes(_ text: DecodedText, _ start: Int, _ end: Int) -> [UInt8]? {
        guard (end - start) % 2 == 0 else { return nil }
        var result: [UInt8] = []
        var index = start
        while index + 1 < end {
            guard let high = hexValue(text.byte(index)), let low = hexValue(text.byte(index + 1)) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }
}
