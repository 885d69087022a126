/// `$select`, `$expand`, `$orderby`, `$compute` and the nested options of `$expand=Nav(...)`.
extension QueryParser {
    /// The system option a written name denotes (`$filter`, and in V4 also `filter`, any case).
    func systemOption(named raw: String) -> SystemQueryOption? {
        let lowered = String(decoding: raw.utf8.map(ByteClass.lower), as: UTF8.self)
        if lowered.hasPrefix("$") { return SystemQueryOption(rawValue: String(lowered.dropFirst())) }
        return dialect == .v4 ? SystemQueryOption(rawValue: lowered) : nil
    }

    /// `name=value;name=value` up to (not including) the closing `)`.
    mutating func parseNestedOptions(allowed: Set<SystemQueryOption>?) throws(ODataError) -> QueryOptionsSyntax {
        guard dialect == .v4 else { throw error("nested query options are OData V4 syntax", at: token) }
        try enter()
        defer { depth -= 1 }
        var options = QueryOptionsSyntax()
        while true {
            let nameToken = token
            if token.kind == .atName {
                let name = String(string(token).dropFirst())
                try advance()
                _ = try expect(.equals, "'='")
                let value = try parseExpression()
                options.parameterAliases.append(ParameterAliasSyntax(name: name, value: value, range: range(nameToken).union(value.range)))
            } else {
                guard token.kind == .dollarName || token.kind == .name, let option = systemOption(named: string(token)) else {
                    throw error("query option expected, found \(describe(token))", at: token)
                }
                if let allowed, !allowed.contains(option) {
                    throw error("\(string(token)) is not allowed here", at: token)
                }
                if options.range(of: option) != nil { throw error("duplicate query option \(string(token))", at: token) }
                options.optionRanges.append(.init(option: option, range: range(nameToken)))
                try advance()
                if token.kind != .equals || token.spaceBefore { throw error("'=' expected", at: token) }
                try advance()
                try parseOptionValue(option, into: &options, nameToken: nameToken)
            }
            guard token.kind == .semicolon else { break }
            try advance()
        }
        return options
    }

    /// The value of one nested option, at the current token.
    private mutating func parseOptionValue(_ option: SystemQueryOption, into options: inout QueryOptionsSyntax, nameToken: Token) throws(ODataError) {
        if token.spaceBefore { throw error("unexpected whitespace", at: token) }
        switch option {
        case .filter: options.filter = try parseExpression()
        case .orderby: options.orderBy = try parseOrderByItems()
        case .select: options.select = try parseSelectItems()
        case .expand: options.expand = try parseExpandItems()
        case .compute: options.compute = try parseComputeItems()
        case .top, .skip, .index:
            let value = try parseInteger(allowNegative: option == .index)
            if option == .top { options.top = value } else if option == .skip { options.skip = value } else { options.index = value }
        case .count:
            if isWord("true") { options.count = true } else if isWord("false") { options.count = false } else {
                throw error("true or false expected", at: token)
            }
            try advance()
        case .levels:
            if isWord("max") {
                options.levels = .max
                try advance()
            } else {
                if token.kind == .number && text.byte(token.start) == UInt8(ascii: "0") {
                    throw error("$levels is a positive integer or max", at: token)
                }
                options.levels = .count(try parseInteger(allowNegative: false))
            }
        case .search:
            var search = SearchParser(text: text, position: token.start, end: lexer.end, nested: true, maxDepth: maxDepth)
            options.search = try search.parse()
            try resume(at: search.position)
        default:
            throw error("\(string(nameToken)) is not allowed in nested options", at: nameToken)
        }
    }

    /// Decimal digits (and for `$index` an optional minus) as Int64.
    mutating func parseInteger(allowNegative: Bool) throws(ODataError) -> Int64 {
        guard token.kind == .number else { throw error("integer expected, found \(describe(token))", at: token) }
        let bytes = Array(string(token).utf8)
        for (offset, byte) in bytes.enumerated() where !ByteClass.isDigit(byte) {
            if offset == 0 && byte == UInt8(ascii: "-") && allowNegative { continue }
            throw text.error("digits expected", at: token.start + offset)
        }
        guard let value = LiteralReader.integer(bytes) else { throw error("integer out of range", at: token) }
        try advance()
        return value
    }

    /// `expr [asc|desc], ...`.
    mutating func parseOrderByItems() throws(ODataError) -> [OrderByItemSyntax] {
        var items: [OrderByItemSyntax] = []
        while true {
            let expression = try parseExpression()
            var descending = false
            var itemRange = expression.range
            if token.spaceBefore && (isWord("asc") || isWord("desc")) {
                descending = isWord("desc")
                itemRange = itemRange.union(range(token))
                try advance()
            }
            items.append(OrderByItemSyntax(expression: expression, descending: descending, range: itemRange))
            guard token.kind == .comma else { return items }
            try advance()
        }
    }

    /// `expr as Name, ...`.
    mutating func parseComputeItems() throws(ODataError) -> [ComputeItemSyntax] {
        guard dialect == .v4 else { throw error("$compute is OData V4 syntax", at: token) }
        var items: [ComputeItemSyntax] = []
        while true {
            let expression = try parseExpression()
            guard isWord("as"), token.spaceBefore else { throw error("'as' expected", at: token) }
            try advance()
            guard token.kind == .name, token.spaceBefore else { throw error("alias name expected", at: token) }
            let alias = string(token)
            items.append(ComputeItemSyntax(expression: expression, alias: alias, range: expression.range.union(range(token))))
            try advance()
            guard token.kind == .comma else { return items }
            try advance()
        }
    }

    /// `$select` items separated by commas.
    mutating func parseSelectItems() throws(ODataError) -> [SelectItemSyntax] {
        var items: [SelectItemSyntax] = []
        while true {
            let start = token
            var path = try parseSelectExpandPath(expand: false)
            var options: QueryOptionsSyntax?
            var end = path.last?.range.end ?? range(start).end
            if token.kind == .openParen && !token.spaceBefore {
                let next = try peek()
                let startsOptions = next.kind == .dollarName || next.kind == .atName || (next.kind == .name && (try? Lexer(text, from: next.end, to: lexer.end, dialect: dialect).peek().kind) == .equals)
                if startsOptions {
                    try advance()
                    options = try parseNestedOptions(allowed: nil)
                    end = range(try expect(.closeParen, "')'")).end
                } else if var last = path.popLast() {
                    // An operation's parameter names: Model.MostPopularName(Location,Kind).
                    let list = try parseArgumentList()
                    last.argumentLists.append(list)
                    last.range = last.range.union(list.range)
                    end = list.range.end
                    path.append(last)
                }
            }
            let offset = range(start).offset
            items.append(SelectItemSyntax(path: path, options: options, range: SourceRange(offset: offset, length: max(0, end - offset))))
            guard token.kind == .comma else { return items }
            try advance()
        }
    }

    /// `$expand` items separated by commas.
    mutating func parseExpandItems() throws(ODataError) -> [ExpandItemSyntax] {
        var items: [ExpandItemSyntax] = []
        while true {
            let start = token
            let path = try parseSelectExpandPath(expand: true)
            var options: QueryOptionsSyntax?
            var end = path.last?.range.end ?? range(start).end
            if token.kind == .openParen && !token.spaceBefore {
                guard dialect == .v4 else { throw error("nested expand options are OData V4 syntax", at: token) }
                var allowed: Set<SystemQueryOption>?
                switch path.last?.kind {
                case .ref?: allowed = [.filter, .search, .skip, .top, .count, .orderby]
                case .count?: allowed = [.filter, .search]
                default: allowed = nil
                }
                try advance()
                options = try parseNestedOptions(allowed: allowed)
                end = range(try expect(.closeParen, "')'")).end
            }
            let offset = range(start).offset
            items.append(ExpandItemSyntax(path: path, options: options, range: SourceRange(offset: offset, length: max(0, end - offset))))
            guard token.kind == .comma else { return items }
            try advance()
        }
    }

    /// `A/Model.B/C`, `*`, `Model.*`, `@Term`, and for `$expand` a final `$ref`, `$count` or `$value`.
    private mutating func parseSelectExpandPath(expand: Bool) throws(ODataError) -> [PathSegmentSyntax] {
        var segments: [PathSegmentSyntax] = []
        while true {
            let start = token
            switch token.kind {
            case .name:
                segments.append(PathSegmentSyntax(.name(string(token)), range: range(token)))
            case .star:
                segments.append(PathSegmentSyntax(.name("*"), range: range(token)))
            case .atName:
                guard dialect == .v4 else { throw error("annotations are OData V4 syntax", at: token) }
                segments.append(PathSegmentSyntax(.annotation(String(string(token).dropFirst())), range: range(token)))
            case .dollarName where expand:
                let name = string(token)
                let kind: PathSegmentSyntax.Kind
                switch name {
                case "$ref": kind = .ref
                case "$count": kind = .count
                case "$value" where segments.isEmpty: kind = .value
                default: throw error("unexpected \(describe(token))", at: token)
                }
                if dialect == .v2 { throw error("\(name) in $expand is OData V4 syntax", at: token) }
                try advance()
                segments.append(PathSegmentSyntax(kind, range: range(start)))
                return segments
            default:
                throw error(expand ? "navigation property expected, found \(describe(token))" : "property expected, found \(describe(token))", at: token)
            }
            if token.spaceBefore { throw error("unexpected whitespace", at: token) }
            try advance()
            guard token.kind == .slash && !token.spaceBefore else { return segments }
            try advance()
        }
    }
}
