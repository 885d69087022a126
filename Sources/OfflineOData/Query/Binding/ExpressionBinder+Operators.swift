/// Logical, comparison, arithmetic, `in` and `has` operators, with URL Conventions §5.1.1 typing.
extension ExpressionBinder {
    /// A binary expression and the binary expressions down its left side, bound without recursing
    /// along that side: the parser builds `a and b and c ...` (any operator chain) as a left-deep
    /// tree as long as the chain, so recursing there would take stack in proportion to the
    /// input's length. The operators are bound bottom-up, each with its left operand bound already;
    /// only right operands (bounded by the parser's depth limit) are bound recursively.
    mutating func bindChain(_ syntax: ExpressionSyntax) throws(ODataError) -> BoundExpression {
        var spine: [(op: BinaryOperator, lhs: ExpressionSyntax, rhs: ExpressionSyntax, range: SourceRange)] = []
        var current = syntax
        while case .binary(let op, let lhs, let rhs) = current.kind {
            spine.append((op, lhs, rhs, current.range))
            current = lhs
        }
        var bound: BoundExpression?
        for node in spine.reversed() {
            bound = try bindBinary(node.op, node.lhs, node.rhs, range: node.range, boundLeft: bound)
        }
        guard let bound else { return try bind(syntax) }
        return bound
    }

    /// `lhs`, unless it is bound already.
    private mutating func bind(_ lhs: ExpressionSyntax, _ boundLeft: BoundExpression?) throws(ODataError) -> BoundExpression {
        if let boundLeft { return boundLeft }
        return try bind(lhs)
    }

    /// `lhs op rhs`; `boundLeft` is `lhs` bound already (then `lhs` is only looked at, not bound).
    mutating func bindBinary(_ op: BinaryOperator, _ lhs: ExpressionSyntax, _ rhs: ExpressionSyntax,
                             range: SourceRange, boundLeft: BoundExpression? = nil) throws(ODataError) -> BoundExpression {
        switch op {
        case .and, .or:
            let left = try bind(lhs, boundLeft), right = try bind(rhs)
            try requireBoolean(left, at: lhs.range, for: op.rawValue)
            try requireBoolean(right, at: rhs.range, for: op.rawValue)
            return BoundExpression(op == .and ? .and(left, right) : .or(left, right), type: .primitive(.boolean), range: range)
        case .eq, .ne, .gt, .ge, .lt, .le:
            let (left, right) = try bindOperands(lhs, rhs, boundLeft: boundLeft)
            try checkComparable(left, right, op: op, rhsRange: rhs.range)
            return BoundExpression(.comparison(Self.comparisonOperator(op), left, right), type: .primitive(.boolean), range: range)
        case .add, .sub, .mul, .div, .divby, .mod:
            let (left, right) = try bindOperands(lhs, rhs, comparing: false, boundLeft: boundLeft)
            let type = try arithmeticType(op, left, right, lhs: lhs, rhs: rhs)
            return BoundExpression(.arithmetic(Self.arithmeticOperator(op), left, right), type: type, range: range)
        case .in:
            let left = try bind(lhs, boundLeft)
            guard case .list(let items) = rhs.kind else {
                throw binder.unsupported("'in' needs a parenthesized list of values offline", at: rhs.range)
            }
            var bound: [BoundExpression] = []
            for item in items {
                if let literal = literalSyntax(item), left.type != .null {
                    bound.append(try coerce(literal, to: comparisonTarget(left.type, literal), against: left.type, range: item.range))
                } else {
                    let value = try bind(item)
                    try checkComparable(left, value, op: .eq, rhsRange: item.range)
                    bound.append(value)
                }
            }
            return BoundExpression(.in(left, bound), type: .primitive(.boolean), range: range)
        case .has:
            let left = try bind(lhs, boundLeft)
            guard case .enumeration(let enumName) = left.type else {
                throw binder.semantic("'has' needs an enumeration on its left, not \(left.type)", at: lhs.range)
            }
            guard let literal = literalSyntax(rhs) else { throw binder.semantic("'has' needs an enumeration literal", at: rhs.range) }
            let right = try coerce(literal, to: .enumeration(enumName), against: left.type, range: rhs.range)
            guard case .literal(let value) = right.kind else { throw binder.semantic("'has' needs an enumeration literal", at: rhs.range) }
            return BoundExpression(.has(left, value), type: .primitive(.boolean), range: range)
        }
    }

    /// Binds both operands; a literal operand takes the type the other operand gives it.
    mutating func bindOperands(_ lhs: ExpressionSyntax, _ rhs: ExpressionSyntax, comparing: Bool = true,
                               boundLeft: BoundExpression? = nil) throws(ODataError) -> (BoundExpression, BoundExpression) {
        // A bound left operand is an operator's result, never a literal.
        let leftLiteral = boundLeft == nil ? literalSyntax(lhs) : nil, rightLiteral = literalSyntax(rhs)
        if let rightLiteral, leftLiteral == nil {
            let left = try bind(lhs, boundLeft)
            if left.type == .null { return (left, try bindLiteral(rightLiteral)) }
            return (left, try coerce(rightLiteral, against: left.type, comparing: comparing, range: rhs.range))
        }
        if let leftLiteral, rightLiteral == nil {
            let right = try bind(rhs)
            if right.type == .null { return (try bindLiteral(leftLiteral), right) }
            return (try coerce(leftLiteral, against: right.type, comparing: comparing, range: lhs.range), right)
        }
        return (try bind(lhs, boundLeft), try bind(rhs))
    }

    /// `literal` as an operand next to one of type `other`: converted to `other` itself when it
    /// fits (converting once, the common case), else to the type ``comparisonTarget(_:_:comparing:)`` picks.
    func coerce(_ literal: LiteralSyntax, against other: BoundType, comparing: Bool, range: SourceRange) throws(ODataError) -> BoundExpression {
        if case .null = literal.kind { return BoundExpression(.null, type: .null, range: range) }
        if case .primitive(let otherType) = other, let value = LiteralCoercion.value(literal, as: otherType) {
            return BoundExpression(.literal(value), type: other, range: literal.range)
        }
        return try coerce(literal, to: comparisonTarget(other, literal, comparing: comparing), against: other, range: range)
    }

    static func comparisonOperator(_ op: BinaryOperator) -> ComparisonOperator {
        switch op {
        case .ne: .ne
        case .gt: .gt
        case .ge: .ge
        case .lt: .lt
        case .le: .le
        default: .eq
        }
    }

    static func arithmeticOperator(_ op: BinaryOperator) -> ArithmeticOperator {
        switch op {
        case .sub: .sub
        case .mul: .mul
        case .div: .div
        case .divby: .divby
        case .mod: .mod
        default: .add
        }
    }

    /// The type a literal takes against an operand of type `other`: the other's type, or the
    /// promoted numeric type when the literal needs a wider one. A comparison of an integer with a
    /// decimal literal (`IntProp gt 2.5`) compares as Double, which is exact for such literals and
    /// lets SQLite compare numbers natively; arithmetic promotes to Decimal as the spec says.
    func comparisonTarget(_ other: BoundType, _ literal: LiteralSyntax, comparing: Bool = true) -> BoundType {
        guard case .primitive(let otherType) = other, TypePromotion.isNumeric(otherType),
              let natural = LiteralCoercion.naturalType(literal), TypePromotion.isNumeric(natural) else { return other }
        if LiteralCoercion.value(literal, as: otherType) != nil { return other }
        if comparing, TypePromotion.isInteger(otherType), natural == .decimal { return .primitive(.double) }
        return .primitive(TypePromotion.promote(otherType, natural) ?? otherType)
    }

    func checkComparable(_ left: BoundExpression, _ right: BoundExpression, op: BinaryOperator, rhsRange: SourceRange) throws(ODataError) {
        if left.type == .null || right.type == .null { return }
        switch (left.type, right.type) {
        case (.primitive(let a), .primitive(let b)) where TypePromotion.comparable(a, b):
            return
        case (.enumeration(let a), .enumeration(let b)) where a == b:
            return
        default:
            break
        }
        throw binder.semantic("cannot compare \(left.type) with \(right.type) using '\(op.rawValue)'", at: rhsRange)
    }

    func arithmeticType(_ op: BinaryOperator, _ left: BoundExpression, _ right: BoundExpression,
                        lhs: ExpressionSyntax, rhs: ExpressionSyntax) throws(ODataError) -> BoundType {
        func numeric(_ expression: BoundExpression, _ syntax: ExpressionSyntax) throws(ODataError) -> PrimitiveType? {
            if expression.type == .null { return nil }
            guard let type = expression.type.primitive, TypePromotion.isNumeric(type) else {
                if let type = expression.type.primitive, [.dateTimeOffset, .date, .duration, .dateTime].contains(type) {
                    throw binder.unsupported("date and duration arithmetic is not supported in offline $filter", at: syntax.range)
                }
                throw binder.semantic("'\(op.rawValue)' needs numbers, not \(expression.type)", at: syntax.range)
            }
            return type
        }
        let a = try numeric(left, lhs), b = try numeric(right, rhs)
        guard let promoted = TypePromotion.promote(a ?? b ?? .int32, b ?? a ?? .int32) else { return .null }
        if op == .divby && TypePromotion.isInteger(promoted) { return .primitive(.decimal) }
        if a == nil || b == nil { return .null }
        return .primitive(promoted)
    }
}
