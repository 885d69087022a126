/// Member paths in expressions (`Address/City`, `Orders/$count`, `d/any(x:x/p eq 1)`) and the
/// parenthesized argument lists shared with the resource path.
extension QueryParser {
    /// A path starting at the current token (`.implicit`) or after an already consumed root.
    mutating func parseMemberPath(root: MemberPathSyntax.Root, start: Token, next peeked: Token?) throws(ODataError) -> ExpressionSyntax {
        var segments: [PathSegmentSyntax]
        if root == .implicit {
            if token.kind == .name, let next = peeked, next.kind == .openParen {
                if !next.spaceBefore && (isWord("any") || isWord("all")) {
                    throw error("\(string(token)) must follow a collection-valued path", at: next)
                }
                if !next.spaceBefore && !isQualified(token) {
                    // Unqualified name with arguments first in an expression: a collection with a key.
                    let after = try Lexer(text, from: next.end, to: lexer.end, dialect: dialect).peek()
                    if after.kind == .closeParen { throw error("a key or '(' argument expected", at: next) }
                }
            }
            let firstIsQualified = token.kind == .name && isQualified(token)
            let first = try parseSegment(afterSlash: false)
            if firstIsQualified, first.argumentLists.isEmpty,
               !(token.kind == .slash && !token.spaceBefore) {
                throw ODataError(.syntax, "a qualified name in an expression must be a type cast followed by '/' or a function call with '(...)'", offset: first.range.end)
            }
            // Made with its one element (most paths have one segment): cheaper than appending
            // to an empty array, which first grows it.
            segments = [first]
        } else {
            segments = []
        }
        var end = segments.last?.range.end ?? range(start).end
        while token.kind == .slash && !token.spaceBefore {
            try advance()
            let segment = try parseSegment(afterSlash: true)
            end = segment.range.end
            segments.append(segment)
        }
        if root == .root && segments.isEmpty { throw error("'/' expected after $root", at: token) }
        let startOffset = range(start).offset
        return ExpressionSyntax(.path(MemberPathSyntax(root: root, segments: segments)),
                                range: SourceRange(offset: startOffset, length: max(0, end - startOffset)))
    }

    /// One segment of a member path.
    mutating func parseSegment(afterSlash: Bool) throws(ODataError) -> PathSegmentSyntax {
        try enter()
        defer { depth -= 1 }
        let start = token
        switch token.kind {
        case .name:
            let isAny = isWord("any")
            let isLambda = afterSlash && (isAny || isWord("all")) && text.byte(token.end) == UInt8(ascii: "(")
                && (string(token) == "any" || string(token) == "all")
            let name = string(token)
            try advance()
            if isLambda && token.kind == .openParen && !token.spaceBefore {
                return try parseLambda(isAny ? .any : .all, start: start)
            }
            return try parseArgumentLists(for: .name(name), start: start)
        case .atName:
            let name = String(string(token).dropFirst())
            try advance()
            return PathSegmentSyntax(.annotation(name), range: range(start))
        case .dollarName:
            let name = string(token)
            try advance()
            switch name {
            case "$count":
                var options: QueryOptionsSyntax?
                var end = start.end
                if token.kind == .openParen && !token.spaceBefore {
                    try advance()
                    options = try parseNestedOptions(allowed: [.filter, .search])
                    end = try expect(.closeParen, "')'").end
                }
                return PathSegmentSyntax(.count, countOptions: options, range: range(from: start.start, to: end))
            case "$filter":
                guard dialect == .v4 else { throw error("$filter path segments are OData V4 syntax", at: start) }
                _ = try expect(.openParen, "'('")
                let expression = try parseExpression()
                let close = try expect(.closeParen, "')'")
                return try parseArgumentLists(for: .filter(expression), start: start, headEnd: close.end)
            default:
                throw error("unexpected \(describe(start)) in a path", at: start)
            }
        default:
            throw error("path segment expected, found \(describe(token))", at: token)
        }
    }

    /// Collects the `(...)` groups written right after a segment name.
    /// `headEnd` is where the segment's own text ends (after `$filter(...)`, the closing parenthesis).
    mutating func parseArgumentLists(for kind: PathSegmentSyntax.Kind, start: Token, headEnd: Int? = nil) throws(ODataError) -> PathSegmentSyntax {
        var lists: [ArgumentListSyntax] = []
        var end = text.origin(headEnd ?? start.end)
        while token.kind == .openParen && !token.spaceBefore {
            let list = try parseArgumentList()
            end = list.range.end
            lists.append(list)
        }
        let offset = text.origin(start.start)
        return PathSegmentSyntax(kind, argumentLists: lists, range: SourceRange(offset: offset, length: max(0, end - offset)))
    }

    /// `()`, `(value)`, `(value,value)` or `(name=value,...)`, from the current `(`.
    mutating func parseArgumentList() throws(ODataError) -> ArgumentListSyntax {
        try enter()
        defer { depth -= 1 }
        let open = try expect(.openParen, "'('")
        var arguments: [ArgumentSyntax] = []
        if token.kind != .closeParen {
            while true {
                let argumentStart = token
                var name: String?
                if token.kind == .name, try peek().kind == .equals {
                    name = string(token)
                    try advance()
                    try advance()
                }
                let value = try parseArgumentValue()
                arguments.append(ArgumentSyntax(name: name, value: value, range: range(argumentStart).union(value.range)))
                guard token.kind == .comma else { break }
                try advance()
            }
        }
        guard token.kind == .closeParen else {
            throw error(arguments.isEmpty ? "')' expected, found \(describe(token))" : "',' or ')' expected, found \(describe(token))", at: token)
        }
        let close = token
        try advance()
        return ArgumentListSyntax(arguments: arguments, range: range(from: open.start, to: close.end))
    }

    /// A key or parameter value: in a resource path only a literal or an alias, elsewhere any expression.
    private mutating func parseArgumentValue() throws(ODataError) -> ExpressionSyntax {
        guard pathMode else { return try parseExpression() }
        let start = token
        if token.kind == .atName {
            try advance()
            return ExpressionSyntax(.parameterAlias(String(text.string(start.start, start.end).dropFirst())), range: range(start))
        }
        if token.kind == .openBracket || token.kind == .openBrace {
            throw ODataError(.unsupported, "unsupported: JSON array and object values in a resource path; pass them as a parameter alias (@p)", offset: text.origin(token.start))
        }
        if let literal = try LiteralReader.literal(token, in: text, dialect: dialect) {
            try advance()
            return ExpressionSyntax(.literal(literal), range: literal.range)
        }
        throw error("a key or parameter value must be a literal or a parameter alias", at: token)
    }

    /// `any(x: predicate)`, `all(x: predicate)` or `any()`, from the current `(`.
    private mutating func parseLambda(_ quantifier: LambdaSyntax.Quantifier, start: Token) throws(ODataError) -> PathSegmentSyntax {
        guard dialect == .v4 else {
            throw error("lambda operators any/all are OData V4 syntax", at: start)
        }
        try advance()
        if token.kind == .closeParen {
            guard quantifier == .any else { throw error("all() needs a lambda variable and a predicate", at: token) }
            let close = token
            try advance()
            return PathSegmentSyntax(.lambda(LambdaSyntax(quantifier: .any, variable: nil, predicate: nil)), range: range(from: start.start, to: close.end))
        }
        guard token.kind == .name, !isQualified(token) else { throw error("lambda variable expected", at: token) }
        let variable = string(token)
        try advance()
        _ = try expect(.colon, "':'")
        let predicate = try parseExpression()
        let close = try expect(.closeParen, "')'")
        return PathSegmentSyntax(.lambda(LambdaSyntax(quantifier: quantifier, variable: variable, predicate: predicate)),
                                 range: range(from: start.start, to: close.end))
    }
}
