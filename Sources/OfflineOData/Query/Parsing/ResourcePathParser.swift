/// The resource path: segments split on the raw `/` of the original text, each lexed on its own.
///
/// It checks what needs no model: `$count`, `$value` and `$ref` end a path, `$metadata` and
/// `$batch` stand alone, `$entity` needs `$id`, the dialect's `$ref`/`$links`. Whether `Foo(1)` is
/// a key or a function call is left to the binder (see ``PathSegmentSyntax``).
struct ResourcePathParser {
    let original: [UInt8]
    let dialect: Dialect
    let maxDepth: Int
    /// False when the caller scanned the text and found no `%`: parts then skip their own scan.
    var mayContainPercent = true
    /// ``ODataURLParser/Limits/maxOperators``.
    var maxOperators = 20_000

    func parse(from start: Int, to end: Int) throws(ODataError) -> ResourcePathSyntax {
        let text = try DecodedText(original, from: start, to: end, mayContainPercent: mayContainPercent)
        var segments: [PathSegmentSyntax] = []
        var segmentStart = 0
        if text.byte(0) == UInt8(ascii: "/") && !text.wasEncoded(0) { segmentStart = 1 }
        var slashBefore = -1
        while segmentStart <= text.count {
            var segmentEnd = segmentStart
            while segmentEnd < text.count && !(text.byte(segmentEnd) == UInt8(ascii: "/") && !text.wasEncoded(segmentEnd)) {
                segmentEnd += 1
            }
            if segmentEnd == segmentStart {
                // An empty segment is allowed only as a trailing slash (or an empty path).
                if segmentEnd < text.count { throw text.error("empty path segment", at: segmentStart) }
            } else {
                if let previous = segments.last {
                    try checkFollows(previous, slashAt: slashBefore, in: text)
                }
                let segment = try parseSegment(text, from: segmentStart, to: segmentEnd, first: segments.isEmpty)
                // The first made with its element: cheaper than growing an empty array.
                if segments.isEmpty { segments = [segment] } else { segments.append(segment) }
            }
            slashBefore = segmentEnd
            segmentStart = segmentEnd + 1
        }
        try checkFirst(segments, in: text)
        if segments.last?.kind == .links {
            throw text.error("$links must be followed by a navigation property", at: text.count)
        }
        return ResourcePathSyntax(segments: segments, range: SourceRange(offset: start, length: end - start))
    }

    private func parseSegment(_ text: DecodedText, from start: Int, to end: Int, first: Bool) throws(ODataError) -> PathSegmentSyntax {
        if isPlainIdentifier(text, from: start, to: end) {
            return PathSegmentSyntax(.name(text.string(start, end)), range: text.range(start, end))
        }
        var parser: QueryParser
        do throws(ODataError) {
            parser = try QueryParser(Lexer(text, from: start, to: end, dialect: dialect, pathMode: true), maxDepth: maxDepth, maxOperators: maxOperators)
        } catch {
            if first || dialect == .v2 { throw error }
            return try keyAsSegment(text, from: start, to: end, original: error)
        }
        let token = parser.token
        if token.kind == .dollarName && parser.string(token) == "$filter" {
            var segment = try parser.parseSegment(afterSlash: true)
            try parser.expectEnd()
            segment.range = text.range(start, end)
            return segment
        }
        if token.spaceBefore { throw text.error("unexpected whitespace in a path", at: start) }
        switch token.kind {
        case .dollarName:
            let name = parser.string(token)
            try parser.advance()
            let kind: PathSegmentSyntax.Kind
            switch name {
            case "$metadata": kind = .metadata
            case "$batch": kind = .batch
            case "$entity": kind = .entity
            case "$all": kind = .all
            case "$count": kind = .count
            case "$value": kind = .value
            case "$each": kind = .each
            case "$query": kind = .query
            case "$ref":
                guard dialect == .v4 else { throw parser.error("$ref is OData V4 syntax; V2 writes $links", at: token) }
                kind = .ref
            case "$links":
                guard dialect == .v2 else { throw parser.error("$links is OData V2 syntax; V4 writes $ref", at: token) }
                kind = .links
            case "$crossjoin":
                _ = try parser.expect(.openParen, "'('")
                var names: [String] = []
                while true {
                    let nameToken = try parser.expect(.name, "entity set name")
                    names.append(parser.string(nameToken))
                    guard parser.token.kind == .comma else { break }
                    try parser.advance()
                }
                _ = try parser.expect(.closeParen, "')'")
                kind = .crossjoin(names)
            default:
                throw parser.error("unknown path segment \(name)", at: token)
            }
            try parser.expectEnd()
            return PathSegmentSyntax(kind, range: text.range(start, end))
        case .name, .atName:
            if first, token.kind == .name, let dot = (token.start..<token.end).first(where: { text.byte($0) == UInt8(ascii: ".") }) {
                throw text.error("a resource path starts with an entity set, singleton or operation import, not a qualified name", at: dot)
            }
            do throws(ODataError) {
                var segment = try parser.parseSegment(afterSlash: true)
                try parser.expectEnd()
                segment.range = text.range(start, end)
                return segment
            } catch {
                if first || dialect == .v2 { throw error }
                return try keyAsSegment(text, from: start, to: end, original: error)
            }
        default:
            if first { throw parser.error("resource path segment expected, found \(parser.describe(token))", at: token) }
            if dialect == .v2 { throw parser.error("key-as-segment is not OData V2 syntax", at: token) }
            if let literal = try LiteralReader.literal(token, in: text, dialect: dialect) {
                try parser.advance()
                if parser.token.kind == .end {
                    return PathSegmentSyntax(.keyValue(literal), range: text.range(start, end))
                }
            }
            return try keyAsSegment(text, from: start, to: end, original: nil)
        }
    }

    /// Whether the segment is one identifier and nothing else (`Agencies`, `Orders`), the common
    /// case: the lexer and parser would make exactly a `.name` segment of it (no dot, no
    /// parenthesis, no quote, no space, nothing a GUID or a lambda could start with), so it is
    /// built directly. With a depth limit of 0 the parser's error must still be reported.
    private func isPlainIdentifier(_ text: DecodedText, from start: Int, to end: Int) -> Bool {
        guard maxDepth > 0, start < end, ByteClass.isIdentifierStart(text.byte(start)) else { return false }
        for index in (start + 1)..<end where !ByteClass.isIdentifierPart(text.byte(index)) { return false }
        return true
    }

    /// A segment that is no name: a 4.01 key written as a segment, kept as its decoded text.
    private func keyAsSegment(_ text: DecodedText, from start: Int, to end: Int, original: ODataError?) throws(ODataError) -> PathSegmentSyntax {
        for index in start..<end where text.byte(index) == UInt8(ascii: "(") || text.byte(index) == UInt8(ascii: ")") {
            if let original { throw original }
            throw text.error("unexpected '\(Character(Unicode.Scalar(text.byte(index))))' in a key segment", at: index)
        }
        let raw = text.string(start, end)
        let literal = LiteralSyntax(kind: .string(raw), text: raw, range: text.range(start, end))
        return PathSegmentSyntax(.keyValue(literal), range: literal.range)
    }

    /// Segments that end a path, and what may follow what.
    private func checkFollows(_ previous: PathSegmentSyntax, slashAt slash: Int, in text: DecodedText) throws(ODataError) {
        switch previous.kind {
        case .count, .value, .ref, .metadata, .batch, .query:
            throw text.error("nothing may follow \(name(previous.kind)) in a path", at: slash)
        default:
            break
        }
    }

    private func checkFirst(_ segments: [PathSegmentSyntax], in text: DecodedText) throws(ODataError) {
        for (index, segment) in segments.enumerated() {
            switch segment.kind {
            case .metadata, .batch, .entity, .all, .crossjoin:
                if index > 0 { throw text.error("\(name(segment.kind)) must be the first segment", at: text.count > 0 ? positionOf(segment, in: text) : 0) }
            case .count, .value, .ref, .links, .each:
                if index == 0 { throw text.error("\(name(segment.kind)) cannot start a path", at: 0) }
            default:
                break
            }
        }
    }

    private func positionOf(_ segment: PathSegmentSyntax, in text: DecodedText) -> Int {
        var index = 0
        while index < text.count && text.origin(index) < segment.range.offset { index += 1 }
        return index
    }

    private func name(_ kind: PathSegmentSyntax.Kind) -> String {
        switch kind {
        case .count: "$count"
        case .value: "$value"
        case .ref: "$ref"
        case .links: "$links"
        case .metadata: "$metadata"
        case .batch: "$batch"
        case .entity: "$entity"
        case .all: "$all"
        case .each: "$each"
        case .query: "$query"
        case .crossjoin: "$crossjoin"
        default: "this segment"
        }
    }
}
