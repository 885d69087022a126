/// The public entry point: parses a relative OData request URL (or one of its parts) into a
/// syntax tree that needs no model.
///
/// ```swift
/// let parser = ODataURLParser(dialect: .v4)
/// let request = try parser.parse("Products?$filter=Price gt 5&$top=10")
/// ```
/// Errors are `ODataError(.syntax, ..., offset:)` with the character offset in the text passed in
/// (`.unsupported` for geospatial literals and functions, JSON values inside a resource path, and
/// `$apply`). Every limit is checked: input longer than ``Limits/maxLength`` or nested deeper than
/// ``Limits/maxDepth`` is an error, not a crash.
public struct ODataURLParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Maximum nesting of parentheses, operators, paths and nested options.
        public var maxDepth: Int
        /// Maximum input length in UTF-8 bytes.
        public var maxLength: Int

        public init(maxDepth: Int = 100, maxLength: Int = 65_536) {
            self.maxDepth = maxDepth
            self.maxLength = maxLength
        }
    }

    public let dialect: Dialect
    public let limits: Limits

    public init(dialect: Dialect = .v4, limits: Limits = Limits()) {
        self.dialect = dialect
        self.limits = limits
    }

    /// `path[?query][#fragment]`, relative to the service root.
    public func parse(_ url: String) throws(ODataError) -> ODataRequestSyntax {
        try run(url) { bytes throws(ODataError) in
            var queryStart = bytes.count
            var fragmentStart = bytes.count
            var hasPercent = false
            // The one pass over every byte of the URL: through the buffer, whose indices are in
            // bounds by construction, so no per-byte bounds check.
            bytes.withUnsafeBufferPointer { buffer in
                for index in buffer.indices {
                    let byte = buffer[index]
                    if byte == UInt8(ascii: "#") { fragmentStart = index; break }
                    if byte == UInt8(ascii: "?") && queryStart == buffer.count { queryStart = index }
                    if byte == UInt8(ascii: "%") { hasPercent = true }
                }
            }
            queryStart = min(queryStart, fragmentStart)
            let path = try ResourcePathParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, mayContainPercent: hasPercent)
                .parse(from: 0, to: queryStart)
            let options: QueryOptionsSyntax
            if queryStart < fragmentStart {
                options = try QueryStringParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth, mayContainPercent: hasPercent)
                    .parse(from: queryStart + 1, to: fragmentStart)
            } else {
                options = QueryOptionsSyntax()
            }
            let fragment = fragmentStart < bytes.count ? String(decoding: bytes[(fragmentStart + 1)...], as: UTF8.self) : nil
            try checkRequest(path, options, length: fragmentStart)
            // The parts' last use: they move into the request (building it before the check
            // copied both, the options being a large struct).
            return ODataRequestSyntax(path: path, options: options, fragment: fragment)
        }
    }

    /// The resource path alone.
    public func parseResourcePath(_ path: String) throws(ODataError) -> ResourcePathSyntax {
        try run(path) { bytes throws(ODataError) in
            try ResourcePathParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth).parse(from: 0, to: bytes.count)
        }
    }

    /// A query string without the `?`: `$filter=...&$top=5&@p=1&custom=x`.
    public func parseQueryOptions(_ query: String) throws(ODataError) -> QueryOptionsSyntax {
        try run(query) { bytes throws(ODataError) in
            try QueryStringParser(original: bytes, dialect: dialect, maxDepth: limits.maxDepth).parse(from: 0, to: bytes.count)
        }
    }

    /// The value of `$filter` (any common expression).
    public func parseFilter(_ expression: String) throws(ODataError) -> ExpressionSyntax {
        try withParser(expression) { parser throws(ODataError) in try parser.parseWholeExpression() }
    }

    /// The value of `$orderby`.
    public func parseOrderBy(_ value: String) throws(ODataError) -> [OrderByItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            try parser.rejectLeadingSpace()
            let items = try parser.parseOrderByItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$select`.
    public func parseSelect(_ value: String) throws(ODataError) -> [SelectItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            let items = try parser.parseSelectItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$expand`.
    public func parseExpand(_ value: String) throws(ODataError) -> [ExpandItemSyntax] {
        try withParser(value) { parser throws(ODataError) in
            let items = try parser.parseExpandItems()
            try parser.expectEnd()
            return items
        }
    }

    /// The value of `$search`.
    public func parseSearch(_ value: String) throws(ODataError) -> SearchSyntax {
        try run(value) { bytes throws(ODataError) in
            let text = try DecodedText(bytes, from: 0, to: bytes.count)
            var search = SearchParser(text: text, position: 0, end: text.count, nested: false, maxDepth: limits.maxDepth)
            return try search.parse()
        }
    }

    /// One literal on its own (`'O''Neil'`, `2012-09-03`, `binary'Zm9v'`, `1.5M` in V2).
    public func parseLiteral(_ value: String) throws(ODataError) -> LiteralSyntax {
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
            var parser = try QueryParser(Lexer(text, dialect: dialect), maxDepth: limits.maxDepth)
            return try body(&parser)
        }
    }

    /// Applies the length limit and turns byte offsets in errors into character offsets.
    private func run<T>(_ input: String, _ body: ([UInt8]) throws(ODataError) -> T) throws(ODataError) -> T {
        let bytes = Array(input.utf8)
        if bytes.count > limits.maxLength {
            throw ODataError(.syntax, "input longer than the limit of \(limits.maxLength) bytes", offset: characterOffset(bytes, limits.maxLength))
        }
        do {
            return try body(bytes)
        } catch {
            var converted = error
            if let offset = error.offset { converted.offset = characterOffset(bytes, offset) }
            throw converted
        }
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
