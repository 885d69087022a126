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
    func token(at from: Int) throws(ODataError) -> Token {
        var start = from
        while ByteClass.isSpace(at(start)) { start += 1 }
        let byte = at(start)
        var isDotted = false
        let kind: TokenKind
        let index: Int
        if byte == 0 && start >= end {
            (kind, index) = (.end, start)
        } else if let punctuation = punctuationKind(byte, at: start) {
            (kind, index) = (punctuation, start + 1)
        } else {
            (kind, index) = try scanLongToken(byte, from: start, dotted: &isDotted)
        }
        return Token(kind: kind, start: start, end: index, spaceBefore: start > from, isDotted: isDotted)
    }

    /// The kind of a token that is this one byte, or nil when the byte starts a longer token.
    /// Split from ``scanLongToken(_:from:dotted:)`` so the common one-byte case reads at a glance.
    @inline(__always)
    private func punctuationKind(_ byte: UInt8, at index: Int) -> TokenKind? {
        switch byte {
        case UInt8(ascii: "("): .openParen
        case UInt8(ascii: ")"): .closeParen
        case UInt8(ascii: ","): .comma
        case UInt8(ascii: "/"): pathMode && text.wasEncoded(index) ? .other : .slash
        case UInt8(ascii: ":"): .colon
        case UInt8(ascii: "="): .equals
        case UInt8(ascii: ";"): .semicolon
        case UInt8(ascii: "*"): .star
        case UInt8(ascii: "["): .openBracket
        case UInt8(ascii: "]"): .closeBracket
        case UInt8(ascii: "{"): .openBrace
        case UInt8(ascii: "}"): .closeBrace
        case UInt8(ascii: "\""): pathMode ? .doubleQuote : nil
        default: nil
        }
    }

    /// A token of several bytes starting with `byte` at `start`: strings, `$` and `@` names,
    /// signed and unsigned numbers, names and GUIDs; any other byte is a one-byte `.other`.
    @inline(__always)
    private func scanLongToken(_ byte: UInt8, from start: Int, dotted isDotted: inout Bool) throws(ODataError) -> (TokenKind, Int) {
        switch byte {
        case UInt8(ascii: "'"):
            return (.string, try scanQuoted(from: start))
        case UInt8(ascii: "\""):
            return (.jsonString, try scanJSONString(from: start))
        case UInt8(ascii: "$"):
            var index = start + 1
            while ByteClass.isIdentifierPart(at(index)) { index += 1 }
            return (.dollarName, index)
        case UInt8(ascii: "@"):
            var index = scanDottedName(from: start + 1, dotted: &isDotted)
            if at(index) == UInt8(ascii: "#") {
                index += 1
                while ByteClass.isIdentifierPart(at(index)) { index += 1 }
            }
            return (.atName, index)
        case UInt8(ascii: "-"), UInt8(ascii: "+"):
            return try scanSigned(byte, from: start)
        default:
            if ByteClass.isDigit(byte) { return try scanNumeric(from: start) }
            if ByteClass.isIdentifierStart(byte) { return try scanWord(byte, from: start, dotted: &isDotted) }
            return (.other, start + 1)
        }
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

    /// From an identifier's first byte: a GUID, a (dotted) name, or a name prefixing a quoted
    /// string (`datetime'...'`, `Sales.Pattern'Yellow'`).
    private func scanWord(_ byte: UInt8, from start: Int, dotted isDotted: inout Bool) throws(ODataError) -> (TokenKind, Int) {
        // The '-' test first: names are common, GUIDs rare, and the scanner copies the text.
        if at(start + 8) == UInt8(ascii: "-") && ByteClass.isHexDigit(byte)
            && TemporalScanner(text: text, end: end).looksLikeGuid(at: start) {
            return (.guid, try TemporalScanner(text: text, end: end).scanGuid(from: start))
        }
        let index = scanDottedName(from: start, dotted: &isDotted)
        guard at(index) == UInt8(ascii: "'") else { return (.name, index) }
        // An unterminated prefixed string is usually text after a closed string (`'O'Neil'`):
        // report it where that text starts.
        do throws(ODataError) {
            return (.prefixedString, try scanQuoted(from: index))
        } catch {
            throw text.error("unexpected \"\(text.string(start, index))'\" (a quote inside a string is written '')", at: start)
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
            throw text.error("unterminated string literal (it starts at offset \(text.origin(start)))", at: end)
        }
        while true {
            let byte = at(index)
            if index >= end || (pathMode && byte == UInt8(ascii: "/") && !text.wasEncoded(index)) {
                throw text.error("unterminated string literal (it starts at offset \(text.origin(start)))", at: index)
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
        throw text.error("unterminated JSON string (it starts at offset \(text.origin(start)))", at: min(index, end))
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
        if dialect == .v4 && !signed && digitCount == 2 && after == UInt8(ascii: ":") {
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
