#if canImport(Glibc)
import Glibc
#endif

/// The public entry point: parses a relative OData request URL (or one of its parts) into a
/// syntax tree that needs no model.
///
/// ```swift
/// let parser = ODataURLParser(dialect: .v4)
/// let request = try parser.parse("Products?$filter=Price gt 5&$top=10")
/// ```
/// Errors are `ODataError(.syntax, ..., offset:)` with the character offset in the text passed in
/// (`.unsupported` for geospatial literals and functions, JSON values inside a resource path, and
/// `$apply`). Every limit is checked: input longer than ``Limits/maxLength``, nested deeper than
/// ``Limits/maxDepth`` or with more binary operators in one expression than ``Limits/maxOperators``
/// is an error, not a crash.
@_spi(Tool) public struct ODataURLParser: Sendable {
    /// The parser's limits are the store's public request limits (``ODataStore/Options/requestLimits``).
    @_spi(Tool) public typealias Limits = URLLimits

    package let dialect: Dialect
    package let limits: Limits

    @_spi(Tool) public init(dialect: Dialect = .v4, limits: Limits = Limits()) {
        self.dialect = dialect
        self.limits = limits
    }

    /// `path[?query][#fragment]`, relative to the service root.
    @_spi(Tool) public func parse(_ url: String) throws(ODataError) -> ODataRequestSyntax {
        ParseBindCounter.noteParse(of: url)
        // Not through `run`'s closure: its generic result was the request copied once more.
        let bytes = try checkedBytes(url)
        do {
            return try parseRequest(bytes)
        } catch {
            throw characterOffsets(error, in: bytes)
        }
    }

    private func parseRequest(_ bytes: [UInt8]) throws(ODataError) -> ODataRequestSyntax {
        var queryStart = bytes.count
        var fragmentStart = bytes.count
        var hasPercent = false
        // The first `#`, then the first `?` and any `%` before it: memchr scans many bytes at a
        // time, where a loop looks at one. Every search stays within the buffer.
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let start = UnsafeRawPointer(base)
            if let hash = memchr(base, Int32(UInt8(ascii: "#")), buffer.count) { fragmentStart = start.distance(to: hash) }
            if let question = memchr(base, Int32(UInt8(ascii: "?")), fragmentStart) { queryStart = start.distance(to: question) }
            hasPercent = memchr(base, Int32(UInt8(ascii: "%")), fragmentStart) != nil
        }
        queryStart = min(queryStart, fragmentStart)
        let path = try ResourcePathParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, mayContainPercent: hasPercent,
                                           maxOperators: limits.maxOperators)
            .parse(from: 0, to: queryStart)
        let options: QueryOptionsSyntax
        if queryStart < fragmentStart {
            options = try QueryStringParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, mayContainPercent: hasPercent,
                                           maxOperators: limits.maxOperators)
                .parse(from: queryStart + 1, to: fragmentStart)
        } else {
            options = QueryOptionsSyntax()
        }
        let fragment = fragmentStart < bytes.count ? String(decoding: bytes[(fragmentStart + 1)...], as: UTF8.self) : nil
        try checkRequest(path, options, length: fragmentStart)
        // The parts' last use: they move into the request. (Filling a request in place instead
        // cost more: the options were then moved twice.)
        return ODataRequestSyntax(path: path, options: options, fragment: fragment)
    }

    /// The resource path alone.
    package func parseResourcePath(_ path: String) throws(ODataError) -> ResourcePathSyntax {
        try run(path) { bytes throws(ODataError) in
            try ResourcePathParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, maxOperators: limits.maxOperators).parse(from: 0, to: bytes.count)
        }
    }

    /// A query string without the `?`: `$filter=...&$top=5&@p=1&custom=x`.
    package func parseQueryOptions(_ query: String) throws(ODataError) -> QueryOptionsSyntax {
        try run(query) { bytes throws(ODataError) in
            try QueryStringParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, maxOperators: limits.maxOperators).parse(from: 0, to: bytes.count)
        }
    }

    /// The value of `$filter` (any common expression).
    package func parseFilter(_ expression: String) throws(ODataError) -> ExpressionSyntax {
        try withParser(expression) { parser throws(ODataError) in try parser.parseWholeExpression() }
    }

    /// The value of `$orderby`.
    package func parseOrderBy(_ value: String) throws(ODataError) -> [OrderByItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            try parser.rejectLeadingSpace()
            let items = try parser.parseOrderByItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$select`.
    package func parseSelect(_ value: String) throws(ODataError) -> [SelectItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            let items = try parser.parseSelectItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$expand`.
    package func parseExpand(_ value: String) throws(ODataError) -> [ExpandItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            let items = try parser.parseExpandItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$search`.
    package func parseSearch(_ value: String) throws(ODataError) -> SearchSyntax {
        try run(value) { bytes throws(ODataError) in
            let text = try DecodedText(bytes, from: 0, to: bytes.count)
            var search = SearchParser(text: text, position: 0, end: text.count, nested: false, maxDepth: limits.maxDepth)
            return try search.parse()
        }
    }

    /// One literal on its own (`'O''Neil'`, `2012-09-03`, `binary'Zm9v'`, `1.5M` in V2).
    package func parseLiteral(_ value: String) throws(ODataError) -> LiteralSyntax {
        try withParser(value) { parser throws(ODataError) in
            guard let literal = try LiteralReader.literal(parser.token, in: parser.text, dialect: dialect) else {
                throw parser.error("literal expected, found \(parser.describe(parser.token))", at: parser.token)
            }
            try parser.advance()
            try parser.expectEnd()
            return literal
        }
    }

    // MARK: Plumbing

    private func withParser<T>(_ input: String, _ body: (inout QueryParser) throws(ODataError) -> T) throws(ODataError) -> T {
        try run(input) { bytes throws(ODataError) in
            let text = try DecodedText(bytes, from: 0, to: bytes.count)
            var parser = try QueryParser(Lexer(text, dialect: dialect), maxDepth: limits.maxDepth, maxOperators: limits.maxOperators)
            return try body(&parser)
        }
    }

    /// Applies the length limit and turns byte offsets in errors into character offsets.
    private func run<T>(_ input: String, _ body: ([UInt8]) throws(ODataError) -> T) throws(ODataError) -> T {
        let bytes = try checkedBytes(input)
        do {
            return try body(bytes)
        } catch {
            throw characterOffsets(error, in: bytes)
        }
    }

    /// The input's UTF-8 bytes, if within the length limit.
    private func checkedBytes(_ input: String) throws(ODataError) -> [UInt8] {
        let bytes = Array(input.utf8)
        if bytes.count > limits.maxLength {
            throw ODataError(.syntax, "input longer than the limit of \(limits.maxLength) bytes", offset: characterOffset(bytes, limits.maxLength))
        }
        return bytes
    }

    /// `error` with its byte offset turned into a character offset.
    private func characterOffsets(_ error: ODataError, in bytes: [UInt8]) -> ODataError {
        var converted = error
        if let offset = error.offset { converted.offset = characterOffset(bytes, offset) }
        return converted
    }

    /// The number of Unicode scalars before byte `offset`.
    private func characterOffset(_ bytes: [UInt8], _ offset: Int) -> Int {
        var count = 0
        for index in 0..<min(max(offset, 0), bytes.count) where bytes[index] & 0xC0 != 0x80 { count += 1 }
        return count + max(0, offset - bytes.count)
    }

    /// Rules that span path and query: `$entity` needs `$id` (and a type cast before `$select`/`$expand`).
    private func checkRequest(_ path: ResourcePathSyntax, _ options: QueryOptionsSyntax, length: Int) throws(ODataError) {
        guard let first = path.segments.first, first.kind == .entity else { return }
        if options.id == nil { throw ODataError(.syntax, "$entity needs an $id query option", offset: length) }
        if path.segments.count == 1 {
            for option in [SystemQueryOption.select, .expand] {
                if let range = options.range(of: option) {
                    throw ODataError(.syntax, "$select and $expand on $entity need a type cast segment ($entity/Namespace.Type)", offset: range.offset)
                }
            }
        }
    }
}
