/// `$search`: words, `"phrases"`, `NOT`, `AND` (also implied by juxtaposition), `OR`, parentheses.
///
/// It scans decoded bytes itself because search words are not OData tokens (`2x4`, `08/15`,
/// `brand-new`). A raw `;` ends a nested `$search`; `%3B` is part of a word.
struct SearchParser {
    let text: DecodedText
    private(set) var position: Int
    let end: Int
    let nested: Bool
    let maxDepth: Int
    private var depth = 0

    init(text: DecodedText, position: Int, end: Int, nested: Bool, maxDepth: Int) {
        self.text = text
        self.position = position
        self.end = end
        self.nested = nested
        self.maxDepth = maxDepth
    }

    private func at(_ index: Int) -> UInt8 { index < end ? text.byte(index) : 0 }

    /// Parses one search expression; in nested mode it stops before a raw `;` or the closing `)`.
    mutating func parse() throws(ODataError) -> SearchSyntax {
        skipSpace()
        let result = try parseOr()
        skipSpace()
        if !nested && position < end { throw text.error("unexpected character in $search", at: position) }
        return result
    }

    private mutating func skipSpace() { while ByteClass.isSpace(at(position)) { position += 1 } }

    private func isStop(_ index: Int) -> Bool {
        let byte = at(index)
        if index >= end { return true }
        if byte == UInt8(ascii: ";") && !text.wasEncoded(index) { return true }
        return false
    }

    /// The keyword (exactly `AND`, `OR`, `NOT`) at `index` followed by whitespace, if any.
    private func keyword(at index: Int) -> String? {
        for word in ["AND", "OR", "NOT"] {
            let bytes = Array(word.utf8)
            var matches = true
            for (offset, byte) in bytes.enumerated() where at(index + offset) != byte { matches = false }
            if matches && ByteClass.isSpace(at(index + bytes.count)) { return word }
        }
        return nil
    }

    private mutating func enter() throws(ODataError) {
        depth += 1
        if depth > maxDepth { throw text.error("$search nested deeper than the limit of \(maxDepth)", at: position) }
    }

    private mutating func parseOr() throws(ODataError) -> SearchSyntax {
        try enter()
        defer { depth -= 1 }
        var left = try parseAnd()
        while true {
            let save = position
            skipSpace()
            guard position > save, keyword(at: position) == "OR" else { position = save; return left }
            position += 2
            skipSpace()
            let right = try parseAnd()
            left = SearchSyntax(.or(left, right), range: left.range.union(right.range))
        }
    }

    private mutating func parseAnd() throws(ODataError) -> SearchSyntax {
        try enter()
        defer { depth -= 1 }
        var left = try parseNot()
        while true {
            let save = position
            skipSpace()
            guard position > save, !isStop(position), at(position) != UInt8(ascii: ")"), keyword(at: position) != "OR" else {
                position = save
                return left
            }
            if keyword(at: position) == "AND" {
                position += 3
                skipSpace()
            }
            let right = try parseNot()
            left = SearchSyntax(.and(left, right), range: left.range.union(right.range))
        }
    }

    private mutating func parseNot() throws(ODataError) -> SearchSyntax {
        try enter()
        defer { depth -= 1 }
        let start = position
        if keyword(at: position) == "NOT" {
            position += 3
            skipSpace()
            if !isStop(position) && at(position) != UInt8(ascii: ")") {
                let operand = try parseNot()
                return SearchSyntax(.not(operand), range: text.range(start, start + 3).union(operand.range))
            }
            return SearchSyntax(.word("NOT"), range: text.range(start, start + 3))
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(ODataError) -> SearchSyntax {
        let start = position
        let byte = at(position)
        if isStop(position) { throw text.error("search term expected", at: position) }
        if byte == UInt8(ascii: "(") {
            position += 1
            skipSpace()
            let inner = try parseOr()
            skipSpace()
            guard at(position) == UInt8(ascii: ")"), position < end else { throw text.error("')' expected in $search", at: position) }
            position += 1
            return SearchSyntax(inner.kind, range: text.range(start, position))
        }
        if byte == UInt8(ascii: "\"") {
            position += 1
            var content: [UInt8] = []
            while position < end && at(position) != UInt8(ascii: "\"") {
                content.append(at(position))
                position += 1
            }
            guard position < end else { throw text.error("unterminated search phrase", at: position) }
            position += 1
            return SearchSyntax(.phrase(String(decoding: content, as: UTF8.self)), range: text.range(start, position))
        }
        if byte == UInt8(ascii: ")") { throw text.error("search term expected", at: position) }
        var content: [UInt8] = []
        let quoted = byte == UInt8(ascii: "'")
        if quoted {
            // 4.01 searchExpr-incomplete: a single-quoted run is one word whatever it holds.
            content.append(byte)
            position += 1
            while position < end && at(position) != UInt8(ascii: "'") {
                content.append(at(position))
                position += 1
            }
            if position < end {
                content.append(at(position))
                position += 1
            }
        }
        while position < end {
            let current = at(position)
            if ByteClass.isSpace(current) || isStop(position) { break }
            if current == UInt8(ascii: ")") { break }
            if current == UInt8(ascii: "(") || current == UInt8(ascii: "\"") {
                throw text.error("'\(Character(Unicode.Scalar(current)))' cannot appear inside a search word", at: position)
            }
            if current == UInt8(ascii: "#") && !text.wasEncoded(position) {
                throw text.error("'#' must be percent-encoded in $search", at: position)
            }
            content.append(current)
            position += 1
        }
        return SearchSyntax(.word(String(decoding: content, as: UTF8.self)), range: text.range(start, position))
    }
}
