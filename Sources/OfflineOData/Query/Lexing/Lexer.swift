/// The pull lexer: the parser asks for the next token and decides what it means in context.
///
/// It reads decoded bytes `position..<end` of a ``DecodedText``. Literals that need several
/// characters of look-ahead (dates, times, GUIDs, numbers) are recognised here and validated digit
/// by digit. In a resource path a raw `/` (not `%2F`) never belongs to a token, because it always
/// separates segments; `pathMode` makes the lexer honour that.
struct Lexer {
    let text: DecodedText
    let end: Int
    let dialect: Dialect
    let pathMode: Bool
    private(set) var position: Int

    init(_ text: DecodedText, from start: Int = 0, to end: Int? = nil, dialect: Dialect, pathMode: Bool = false) {
        self.text = text
        self.end = min(end ?? text.count, text.count)
        self.dialect = dialect
        self.pathMode = pathMode
        position = start
    }

    @inline(__always)
    func at(_ index: Int) -> UInt8 { text.byte(index, before: end) }

    /// Moves to a byte position (after a sub-parser such as `$search` scanned raw bytes).
    mutating func reset(to index: Int) { position = index }

    /// The next token, without consuming it.
    func peek() throws(ODataError) -> Token {
        try token(at: position)
    }

    mutating func next() throws(ODataError) -> Token {
        let token = try token(at: position)
        position = token.end
        return token
    }

    /// The token starting at (or after whitespace from) `from`; `token.end` is where the next one starts.
    ///
    /// The common tokens (punctuation, names, strings, `$` names, numbers) are recognised here in
    /// one switch, on the hot path of every read; the rarer ones go to the scanners below.
    func token(at from: Int) throws(ODataError) -> Token {
        var start = from
        while ByteClass.isSpace(at(start)) { start += 1 }
        var index = start + 1
        var isDotted = false
        let kind: TokenKind
        let byte = at(start)
        switch byte {
        case 0 where start >= end: kind = .end; index = start
        case UInt8(ascii: "'"): kind = .string; index = try scanQuoted(from: start)
        case UInt8(ascii: "("): kind = .openParen
        case UInt8(ascii: ")"): kind = .closeParen
        case UInt8(ascii: ","): kind = .comma
        case UInt8(ascii: "/"): kind = pathMode && text.wasEncoded(start) ? .other : .slash
        case UInt8(ascii: ":"): kind = .colon
        case UInt8(ascii: "="): kind = .equals
        case UInt8(ascii: ";"): kind = .semicolon
        case UInt8(ascii: "*"): kind = .star
        case UInt8(ascii: "["): kind = .openBracket
        case UInt8(ascii: "]"): kind = .closeBracket
        case UInt8(ascii: "{"): kind = .openBrace
        case UInt8(ascii: "}"): kind = .closeBrace
        case UInt8(ascii: "\""):
            if pathMode { kind = .doubleQuote } else { kind = .jsonString; index = try scanJSONString(from: start) }
        case UInt8(ascii: "$"):
            while ByteClass.isIdentifierPart(at(index)) { index += 1 }
            kind = .dollarName
        case UInt8(ascii: "@"): (kind, index) = (.atName, scanAnnotationName(from: start + 1, dotted: &isDotted))
        case UInt8(ascii: "-"), UInt8(ascii: "+"): (kind, index) = try scanSigned(byte, from: start)
        default:
            if ByteClass.isDigit(byte) {
                (kind, index) = try scanNumeric(from: start)
            } else if !ByteClass.isIdentifierStart(byte) {
                kind = .other
            } else if at(start + 8) == UInt8(ascii: "-") && ByteClass.isHexDigit(byte)
                        && TemporalScanner(text: text, end: end).looksLikeGuid(at: start) {
                // The '-' test first: names are common, GUIDs rare, and the scanner copies the text.
                (kind, index) = (.guid, try TemporalScanner(text: text, end: end).scanGuid(from: start))
            } else {
                index = scanDottedName(from: start, dotted: &isDotted)
                if at(index) == UInt8(ascii: "'") {
                    (kind, index) = (.prefixedString, try scanPrefixedString(nameFrom: start, quoteAt: index))
                } else {
                    kind = .name
                }
            }
        }
        return Token(kind: kind, start: start, end: index, spaceBefore: start > from, isDotted: isDotted)
    }

    /// After `@`: a dotted name and an optional `#qualifier` (`@Measures.Currency#Reporting`).
    private func scanAnnotationName(from start: Int, dotted isDotted: inout Bool) -> Int {
        var index = scanDottedName(from: start, dotted: &isDotted)
        if at(index) == UInt8(ascii: "#") {
            index += 1
            while ByteClass.isIdentifierPart(at(index)) { index += 1 }
        }
        return index
    }

    /// After a `-` or `+`: a signed number, `-INF`, the minus operator, or a stray `+`.
    private func scanSigned(_ sign: UInt8, from index: Int) throws(ODataError) -> (TokenKind, Int) {
        let next = at(index + 1)
        if ByteClass.isDigit(next) { return try scanNumeric(from: index) }
        if sign == UInt8(ascii: "-") && next == UInt8(ascii: "I") && at(index + 2) == UInt8(ascii: "N")
            && at(index + 3) == UInt8(ascii: "F") && !ByteClass.isIdentifierPart(at(index + 4)) {
            return (.number, index + 4)
        }
        return (sign == UInt8(ascii: "-") ? .minus : .other, index + 1)
    }

    /// The quoted part of a name-prefixed string (`datetime'...'`, `Sales.Pattern'Yellow'`); the
    /// end of the token. An unterminated one is usually text after a closed string (`'O'Neil'`):
    /// it is reported where that text starts.
    private func scanPrefixedString(nameFrom start: Int, quoteAt quote: Int) throws(ODataError) -> Int {
        do throws(ODataError) {
            return try scanQuoted(from: quote)
        } catch {
            throw text.error("unexpected \"\(text.string(start, quote))'\" (a quote inside a string is written '')", at: start)
        }
    }

    /// An identifier with `.identifier` parts; a trailing `.*` is included (`Model.*` in `$select`).
    /// `dotted` tells whether a `.` was taken in.
    private func scanDottedName(from start: Int, dotted: inout Bool) -> Int {
        var index = text.identifierEnd(from: start, before: end)
        while at(index) == UInt8(ascii: "."), index > start {
            let next = at(index + 1)
            if ByteClass.isIdentifierStart(next) {
                dotted = true
                index = text.identifierEnd(from: index + 2, before: end)
            } else if next == UInt8(ascii: "*") {
                dotted = true
                return index + 2
            } else {
                break
            }
        }
        return index
    }

    /// A `'...'` string from its opening quote; returns the index after the closing quote.
    private func scanQuoted(from start: Int) throws(ODataError) -> Int {
        var index = start + 1
        if !pathMode {
            // Outside a path only a quote matters: memchr finds each one.
            while let quote = text.firstIndex(of: UInt8(ascii: "'"), from: index, before: end) {
                if at(quote + 1) == UInt8(ascii: "'") {
                    index = quote + 2
                    continue
                }
                return quote + 1
            }
            throw text.error("unterminated string literal starting at offset \(text.origin(start))", at: end)
        }
        while true {
            let byte = at(index)
            if index >= end || (pathMode && byte == UInt8(ascii: "/") && !text.wasEncoded(index)) {
                throw text.error("unterminated string literal starting at offset \(text.origin(start))", at: index)
            }
            if byte == UInt8(ascii: "'") {
                if at(index + 1) == UInt8(ascii: "'") {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
    }

    /// A `"..."` JSON string from its opening quote; returns the index after the closing quote.
    private func scanJSONString(from start: Int) throws(ODataError) -> Int {
        var index = start + 1
        while index < end {
            let byte = at(index)
            if byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        throw text.error("unterminated JSON string starting at offset \(text.origin(start))", at: min(index, end))
    }

    /// Whether the two digits at `start` and what follows read as a time of day: `hh:mm` with hour
    /// 00-23 and minute 00-59, or anything shaped `dd:dd:dd` (a time with seconds, whose bad hour
    /// is then reported where it is). Anything else before a colon is a number, so that the colon
    /// of a `case` pair after a two-digit number (`case(U8 gt 42:1,true:2)`) is not taken for a
    /// time (the ABNF's `caseMethodCallExpr`); a valid `hh:mm` reads as a time of day there.
    private func startsTimeOfDay(at start: Int) -> Bool {
        guard ByteClass.isDigit(at(start + 3)), ByteClass.isDigit(at(start + 4)) else { return false }
        if at(start + 5) == UInt8(ascii: ":") && ByteClass.isDigit(at(start + 6)) && ByteClass.isDigit(at(start + 7)) { return true }
        let hour = Int(at(start) &- 48) * 10 + Int(at(start + 1) &- 48)
        return hour <= 23 && at(start + 3) <= UInt8(ascii: "5")
    }

    /// A token starting with a digit or a sign and a digit: GUID, date, DateTimeOffset, time or number.
    private func scanNumeric(from start: Int) throws(ODataError) -> (TokenKind, Int) {
        let scanner = TemporalScanner(text: text, end: end)
        let signed = at(start) == UInt8(ascii: "-") || at(start) == UInt8(ascii: "+")
        if !signed && scanner.looksLikeGuid(at: start) {
            return (.guid, try scanner.scanGuid(from: start))
        }
        let digitsStart = signed ? start + 1 : start
        var index = digitsStart
        while ByteClass.isDigit(at(index)) { index += 1 }
        let digitCount = index - digitsStart
        let after = at(index)
        if dialect == .v4 && at(start) != UInt8(ascii: "+") && digitCount >= 4 && after == UInt8(ascii: "-") && ByteClass.isDigit(at(index + 1)) {
            let dateEnd = try scanner.scanDate(from: start)
            if ByteClass.lower(at(dateEnd)) == UInt8(ascii: "t") && ByteClass.isDigit(at(dateEnd + 1)) {
                return (.dateTimeOffset, try scanner.scanDateTimeOffset(from: start))
            }
            return (.date, dateEnd)
        }
        if dialect == .v2 && digitCount >= 4 && after == UInt8(ascii: "-") && ByteClass.isDigit(at(index + 1)) {
            throw text.error("bare dates are OData V4 syntax; V2 writes datetime'2012-09-03T00:00'", at: start)
        }
        if dialect == .v2 && !signed && digitCount == 2 && after == UInt8(ascii: ":") {
            throw text.error("bare times are OData V4 syntax; V2 writes time'PT13H20M'", at: start)
        }
        if dialect == .v4 && !signed && digitCount == 2 && after == UInt8(ascii: ":") && startsTimeOfDay(at: start) {
            return (.timeOfDay, try scanner.scanTimeOfDay(from: start, allowLeapSecond: false))
        }
        if after == UInt8(ascii: ".") {
            index += 1
            guard ByteClass.isDigit(at(index)) else { throw text.error("digits expected after the decimal point", at: index) }
            while ByteClass.isDigit(at(index)) { index += 1 }
        }
        if ByteClass.lower(at(index)) == UInt8(ascii: "e") {
            index += 1
            if at(index) == UInt8(ascii: "+") || at(index) == UInt8(ascii: "-") { index += 1 }
            guard ByteClass.isDigit(at(index)) else { throw text.error("digits expected in the exponent", at: index) }
            while ByteClass.isDigit(at(index)) { index += 1 }
        }
        let suffix = ByteClass.lower(at(index))
        if suffix == UInt8(ascii: "m") || suffix == UInt8(ascii: "l") || suffix == UInt8(ascii: "d") || suffix == UInt8(ascii: "f") {
            guard dialect == .v2 else {
                throw text.error("the numeric suffix '\(Character(Unicode.Scalar(at(index))))' is OData V2 syntax; V4 writes plain numbers", at: index)
            }
            index += 1
        }
        if ByteClass.isIdentifierPart(at(index)) || at(index) == UInt8(ascii: ".") {
            let guidShaped = at(start + 8) == UInt8(ascii: "-")
            if !signed && !guidShaped && index - digitsStart == digitCount && ByteClass.isIdentifierStart(at(index)) {
                // `0time`, `2x4`: a name cannot start with a digit; the whole token is wrong.
                throw text.error("a name cannot start with a digit", at: start)
            }
            throw text.error("unexpected character in a number", at: index)
        }
        return (.number, index)
    }
}
