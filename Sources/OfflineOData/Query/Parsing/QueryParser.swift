/// The recursive-descent parser for expressions and the option syntax around them.
///
/// It pulls tokens from a ``Lexer`` over one decoded part of the URL. Every recursion goes through
/// ``enter()``, so nesting deeper than ``ODataURLParser/Limits/maxDepth`` is a `.syntax` error and
/// never a stack overflow. Operator precedence follows URL Conventions §5.1.1 (loosest first: `or`,
/// `and`, `eq ne`, `gt ge lt le`, `add sub`, `mul div divby mod`, unary `-`/`not`, then `has`/`in`
/// and primaries); operators of one level associate to the left.
struct QueryParser {
    var lexer: Lexer
    var token: Token
    let dialect: Dialect
    let maxDepth: Int
    var depth = 0
    /// ``ODataURLParser/Limits/maxOperators``, and the binary operators parsed so far.
    let maxOperators: Int
    var operators = 0
    /// The token after `token` once ``peek()`` has lexed it, and where the lexer stands after it.
    private var lookahead: (token: Token, position: Int)?
    /// True in a resource path: key and parameter values must be literals or aliases.
    let pathMode: Bool

    var text: DecodedText { lexer.text }

    init(_ lexer: Lexer, maxDepth: Int, maxOperators: Int = 20_000) throws(ODataError) {
        self.lexer = lexer
        dialect = lexer.dialect
        pathMode = lexer.pathMode
        self.maxDepth = maxDepth
        self.maxOperators = maxOperators
        token = try self.lexer.next()
    }

    mutating func advance() throws(ODataError) {
        if let lookahead {
            token = lookahead.token
            lexer.reset(to: lookahead.position)
            self.lookahead = nil
        } else {
            token = try lexer.next()
        }
    }

    /// The next token after the current one, lexed once and kept for ``advance()``.
    mutating func peek() throws(ODataError) -> Token {
        if let lookahead { return lookahead.token }
        let next = try lexer.token(at: lexer.position)
        lookahead = (next, next.end)
        return next
    }

    /// Moves the lexer to a byte position (after a sub-parser scanned raw bytes) and reads the token there.
    mutating func resume(at position: Int) throws(ODataError) {
        lookahead = nil
        lexer.reset(to: position)
        token = try lexer.next()
    }

    func error(_ message: String, at token: Token) -> ODataError {
        text.error(message, at: token.start)
    }

    func string(_ token: Token) -> String { text.string(token.start, token.end) }

    func range(_ token: Token) -> SourceRange { text.range(token.start, token.end) }

    func range(from start: Int, to end: Int) -> SourceRange { text.range(start, end) }

    /// Whether the current token is the name `word` (lowercase ASCII, at most 8 bytes), ignoring case.
    /// Inlined, so the word's packed form is worked out when compiling, not at every call.
    @inline(__always)
    func isWord(_ word: StaticString, _ candidate: Token? = nil) -> Bool {
        let token = candidate ?? self.token
        // The length first: most names are no keyword and fail here without packing anything.
        return token.kind == .name && token.end - token.start == word.utf8CodeUnitCount
            && Keyword.packLowercased(text, token.start, token.end) == Keyword.pack(word)
    }

    /// Whether the token's bytes contain a dot (a qualified name).
    func isQualified(_ token: Token) -> Bool {
        if token.kind == .name { return token.isDotted }
        for index in token.start..<token.end where text.byte(index) == UInt8(ascii: ".") { return true }
        return false
    }

    /// A description of the current token for messages.
    func describe(_ token: Token) -> String {
        token.kind == .end ? "end of input" : "'\(string(token))'"
    }

    mutating func expect(_ kind: TokenKind, _ what: String) throws(ODataError) -> Token {
        guard token.kind == kind else { throw error("\(what) expected, found \(describe(token))", at: token) }
        let matched = token
        try advance()
        return matched
    }

    /// Counts one level of nesting; callers decrement `depth` when they return.
    mutating func enter() throws(ODataError) {
        depth += 1
        if depth > maxDepth {
            throw error("expression nested deeper than the limit of \(maxDepth)", at: token)
        }
    }

    /// Counts one binary operator; see ``ODataURLParser/Limits/maxOperators``.
    mutating func countOperator(_ operatorToken: Token) throws(ODataError) {
        operators += 1
        if operators > maxOperators {
            throw error("more than \(maxOperators) operators in one expression, the limit", at: operatorToken)
        }
    }

    /// Option values start right after `=`: whitespace there is an error.
    func rejectLeadingSpace() throws(ODataError) {
        if token.spaceBefore { throw error("unexpected whitespace", at: token) }
    }

    /// Fails unless the whole input was used.
    func expectEnd() throws(ODataError) {
        if token.kind != .end { throw error("unexpected \(describe(token))", at: token) }
    }

    // MARK: Expressions

    /// A whole option value: no leading whitespace, an expression, nothing after it.
    mutating func parseWholeExpression() throws(ODataError) -> ExpressionSyntax {
        if token.spaceBefore { throw error("unexpected whitespace before the expression", at: token) }
        let expression = try parseExpression()
        try expectEnd()
        return expression
    }

    mutating func parseExpression() throws(ODataError) -> ExpressionSyntax {
        try parseBinary(minimumPrecedence: 1)
    }

    @inline(__always)
    private func binaryOperator() -> BinaryOperator? {
        guard token.kind == .name, token.end - token.start <= 5 else { return nil }
        return Keyword.binaryOperator(Keyword.packLowercased(text, token.start, token.end))
    }

    /// Precedence climbing. It recurses only to a tighter level (at most seven deep), so the depth
    /// limit is counted where nesting is unbounded: parentheses, calls, unary chains, paths.
    private mutating func parseBinary(minimumPrecedence: Int) throws(ODataError) -> ExpressionSyntax {
        var left = try parseUnary()
        while let op = binaryOperator(), op.precedence >= minimumPrecedence, op != .has, op != .in {
            let operatorToken = token
            if !operatorToken.spaceBefore { throw error("whitespace expected before '\(string(operatorToken))'", at: operatorToken) }
            if dialect == .v2 && op == .divby { throw error("'divby' is OData V4 syntax", at: operatorToken) }
            try countOperator(operatorToken)
            try advance()
            if !token.spaceBefore { throw error("whitespace expected after '\(string(operatorToken))'", at: token) }
            let right = try parseBinary(minimumPrecedence: op.precedence + 1)
            left = ExpressionSyntax(.binary(op, left, right), range: left.range.union(right.range))
        }
        return left
    }

    private mutating func parseUnary() throws(ODataError) -> ExpressionSyntax {
        let start = token
        if token.kind == .minus {
            try enter()
            defer { depth -= 1 }
            try advance()
            let operand = try parseUnary()
            return ExpressionSyntax(.unary(.negate, operand), range: range(start).union(operand.range))
        }
        if isWord("not") {
            let next = try peek()
            if next.spaceBefore || next.kind == .openParen {
                try enter()
                defer { depth -= 1 }
                try advance()
                let operand = try parseUnary()
                return ExpressionSyntax(.unary(.not, operand), range: range(start).union(operand.range))
            }
        }
        return try parsePostfix()
    }

    /// A primary followed by `has` or `in`, which bind tighter than the unary operators.
    @inline(__always)
    private mutating func parsePostfix() throws(ODataError) -> ExpressionSyntax {
        var left = try parsePrimary()
        while let op = binaryOperator(), op == .has || op == .in {
            let operatorToken = token
            if !operatorToken.spaceBefore { throw error("whitespace expected before '\(string(operatorToken))'", at: operatorToken) }
            if dialect == .v2 && op == .in { throw error("the 'in' operator is OData V4 syntax; V2 writes 'a eq x or a eq y'", at: operatorToken) }
            try countOperator(operatorToken)
            try advance()
            if !token.spaceBefore { throw error("whitespace expected after '\(string(operatorToken))'", at: token) }
            let right = op == .in ? try parseInOperand() : try parsePrimary()
            left = ExpressionSyntax(.binary(op, left, right), range: left.range.union(right.range))
        }
        return left
    }

    /// The right side of `in`: `(literal, ...)`, `()`, or any primary (a collection-valued path).
    private mutating func parseInOperand() throws(ODataError) -> ExpressionSyntax {
        guard token.kind == .openParen else { return try parsePrimary() }
        try enter()
        defer { depth -= 1 }
        let open = token
        try advance()
        if token.kind == .closeParen {
            let close = token
            try advance()
            return ExpressionSyntax(.list([]), range: range(from: open.start, to: close.end))
        }
        let first = try parseExpression()
        guard token.kind == .comma else {
            let close = try expect(.closeParen, "')'")
            if case .literal = first.kind {
                return ExpressionSyntax(.list([first]), range: range(from: open.start, to: close.end))
            }
            return ExpressionSyntax(first.kind, range: range(from: open.start, to: close.end))
        }
        guard case .literal = first.kind else { throw error("a list after 'in' holds literals only", at: token) }
        var items = [first]
        while token.kind == .comma {
            try advance()
            let item = try parseExpression()
            guard case .literal = item.kind else { throw ODataError(.syntax, "a list after 'in' holds literals only", offset: item.range.offset) }
            items.append(item)
        }
        let close = try expect(.closeParen, "')' or ','")
        return ExpressionSyntax(.list(items), range: range(from: open.start, to: close.end))
    }

    mutating func parsePrimary() throws(ODataError) -> ExpressionSyntax {
        let start = token
        switch token.kind {
        case .openParen:
            try enter()
            defer { depth -= 1 }
            try advance()
            let inner = try parseExpression()
            let close = try expect(.closeParen, "')'")
            return ExpressionSyntax(inner.kind, range: range(from: start.start, to: close.end))
        case .string, .jsonString, .number, .date, .dateTimeOffset, .timeOfDay, .guid, .prefixedString:
            guard let literal = try LiteralReader.literal(token, in: text, dialect: dialect) else {
                throw error("literal expected", at: token)
            }
            try advance()
            return ExpressionSyntax(.literal(literal), range: literal.range)
        case .name:
            let next = try peek()
            let attached = !next.spaceBefore && (next.kind == .slash || next.kind == .openParen)
            if !attached, Keyword.mayBeLiteralName(text, token.start, token.end),
               let literal = try LiteralReader.literal(token, in: text, dialect: dialect) {
                try advance()
                return ExpressionSyntax(.literal(literal), range: literal.range)
            }
            if next.kind == .openParen && !next.spaceBefore {
                if dialect == .v4 && isWord("case") && string(token) == "case" {
                    return try parseConditional()
                }
                if let function = try canonicalFunction(token) {
                    return try parseFunctionCall(function)
                }
            }
            return try parseMemberPath(root: .implicit, start: start, next: next)
        case .dollarName:
            let name = string(token)
            let root: MemberPathSyntax.Root
            switch name {
            case "$it": root = .it
            case "$root": root = .root
            case "$this": root = .this
            default: throw error("unexpected \(describe(token)) in an expression", at: token)
            }
            if root == .root && dialect == .v2 { throw error("$root is OData V4 syntax", at: token) }
            try advance()
            return try parseMemberPath(root: root, start: start, next: nil)
        case .atName:
            let name = String(string(token).dropFirst())
            try advance()
            if token.kind == .slash && !token.spaceBefore {
                return try parseMemberPath(root: .alias(name), start: start, next: nil)
            }
            return ExpressionSyntax(.parameterAlias(name), range: range(start))
        case .openBracket:
            return try parseJSONArray()
        case .openBrace:
            return try parseJSONObject()
        case .end:
            throw error("expression expected, found end of input", at: token)
        default:
            throw error("expression expected, found \(describe(token))", at: token)
        }
    }

    /// `case(condition:value, ...)`, from the name `case`.
    private mutating func parseConditional() throws(ODataError) -> ExpressionSyntax {
        try enter()
        defer { depth -= 1 }
        let start = token
        try advance()
        _ = try expect(.openParen, "'('")
        var clauses: [ConditionalClauseSyntax] = []
        while true {
            let condition = try parseExpression()
            _ = try expect(.colon, "':'")
            let value = try parseExpression()
            clauses.append(ConditionalClauseSyntax(condition: condition, value: value))
            guard token.kind == .comma else { break }
            try advance()
        }
        let close = try expect(.closeParen, "',' or ')'")
        return ExpressionSyntax(.conditional(clauses), range: range(from: start.start, to: close.end))
    }

    /// `[value, ...]`: 4.01 JSON array whose items are expressions.
    private mutating func parseJSONArray() throws(ODataError) -> ExpressionSyntax {
        guard dialect == .v4 else { throw error("JSON array literals are OData V4 syntax", at: token) }
        try enter()
        defer { depth -= 1 }
        let open = try expect(.openBracket, "'['")
        var items: [ExpressionSyntax] = []
        if token.kind != .closeBracket {
            while true {
                items.append(try parseExpression())
                guard token.kind == .comma else { break }
                try advance()
            }
        }
        let close = try expect(.closeBracket, items.isEmpty ? "']'" : "',' or ']'")
        return ExpressionSyntax(.array(items), range: range(from: open.start, to: close.end))
    }

    /// `{"name": value, ...}`: 4.01 JSON object whose member values are expressions.
    private mutating func parseJSONObject() throws(ODataError) -> ExpressionSyntax {
        guard dialect == .v4 else { throw error("JSON object literals are OData V4 syntax", at: token) }
        try enter()
        defer { depth -= 1 }
        let open = try expect(.openBrace, "'{'")
        var members: [JSONMemberSyntax] = []
        if token.kind != .closeBrace {
            while true {
                let nameToken = try expect(.jsonString, "member name in double quotes")
                let name = try LiteralReader.unescapeJSON(text, nameToken.start + 1, nameToken.end - 1)
                _ = try expect(.colon, "':'")
                let value = try parseExpression()
                members.append(JSONMemberSyntax(name: name, value: value, range: range(nameToken).union(value.range)))
                guard token.kind == .comma else { break }
                try advance()
            }
        }
        let close = try expect(.closeBrace, members.isEmpty ? "'}'" : "',' or '}'")
        return ExpressionSyntax(.object(members), range: range(from: open.start, to: close.end))
    }

    /// The canonical function a name denotes when it is called, or nil for other functions.
    private func canonicalFunction(_ token: Token) throws(ODataError) -> CanonicalFunction? {
        if token.end - token.start > 4 && Keyword.packLowercased(text, token.start, token.start + 4) == Keyword.pack("geo.") {
            throw ODataError(.unsupported, "unsupported: geospatial functions such as '\(string(token))' are not implemented", offset: text.origin(token.start))
        }
        guard let function = Keyword.canonicalFunction(text, token.start, token.end) else { return nil }
        switch (function, dialect) {
        case (.substringof, .v4):
            throw error("substringof is OData V2 syntax; V4 writes contains(haystack,needle)", at: token)
        case (.replace, .v4):
            throw error("replace is OData V2 syntax; V4 has no replace function", at: token)
        case (.contains, .v2), (.matchesPattern, .v2), (.date, .v2), (.time, .v2), (.totaloffsetminutes, .v2),
             (.now, .v2), (.mindatetime, .v2), (.maxdatetime, .v2), (.fractionalseconds, .v2), (.totalseconds, .v2),
             (.hassubset, .v2), (.hassubsequence, .v2):
            throw error("\(string(token)) is OData V4 syntax", at: token)
        default:
            return function
        }
    }

    private mutating func parseFunctionCall(_ function: CanonicalFunction) throws(ODataError) -> ExpressionSyntax {
        try enter()
        defer { depth -= 1 }
        let nameToken = token
        try advance()
        _ = try expect(.openParen, "'('")
        var arguments: [ExpressionSyntax] = []
        // Room for the most arguments the function takes: appending then never grows the array.
        arguments.reserveCapacity(function.arity.upperBound)
        if token.kind != .closeParen {
            while true {
                if (function == .cast || function == .isof), token.kind == .name, try peek().kind == .closeParen {
                    // The type argument: a (qualified) type name, not a member path.
                    arguments.append(ExpressionSyntax(.typeName(string(token)), range: range(token)))
                    try advance()
                } else {
                    arguments.append(try parseExpression())
                }
                guard token.kind == .comma else { break }
                try advance()
            }
        }
        let close = token
        _ = try expect(.closeParen, arguments.isEmpty ? "')'" : "',' or ')'")
        if !function.arity.contains(arguments.count) {
            throw error("\(function.rawValue) takes \(function.arity.lowerBound == function.arity.upperBound ? "\(function.arity.lowerBound)" : "\(function.arity.lowerBound) to \(function.arity.upperBound)") argument(s)", at: close)
        }
        if function == .cast || function == .isof, let last = arguments.last, let name = Self.plainName(last) {
            arguments[arguments.count - 1] = ExpressionSyntax(.typeName(name), range: last.range)
        }
        return ExpressionSyntax(.function(function, arguments), range: range(from: nameToken.start, to: close.end))
    }

    /// The name of a one-segment implicit path without arguments (a type name argument).
    static func plainName(_ expression: ExpressionSyntax) -> String? {
        guard case .path(let path) = expression.kind, path.root == .implicit, path.segments.count == 1,
              let segment = path.segments.first, segment.argumentLists.isEmpty, case .name(let name) = segment.kind else { return nil }
        return name
    }
}
