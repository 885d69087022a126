/// OData 4.01's conditional expression, `case(condition:value, ..., true:value)`: each condition
/// is Boolean; the values share one type (numbers promote as in arithmetic, a literal takes the
/// type of the values that are not literals, `null` fits any); no true condition gives null.
extension ExpressionBinder {
    mutating func bindConditional(_ clauses: [ConditionalClauseSyntax], range: SourceRange) throws(ODataError) -> BoundExpression {
        var conditions: [BoundExpression] = []
        for clause in clauses {
            let condition = try bind(clause.condition)
            try requireBoolean(condition, at: clause.condition.range, for: "case")
            conditions.append(condition)
        }
        // Values that are not literals decide the type; literals are then read as that type.
        var type: BoundType = .null
        var values: [BoundExpression?] = []
        for clause in clauses {
            if literalSyntax(clause.value) != nil { values.append(nil); continue }
            let value = try bind(clause.value)
            type = try commonValueType(type, value.type, at: clause.value.range)
            values.append(value)
        }
        var bound: [BoundClause] = []
        for (index, clause) in clauses.enumerated() {
            guard conditions.indices.contains(index), values.indices.contains(index) else { break }
            let value: BoundExpression
            if let already = values[index] {
                value = already
            } else if let literal = literalSyntax(clause.value) {
                value = type == .null ? try bindLiteral(literal) : try coerce(literal, against: type, comparing: false, range: clause.value.range)
                type = try commonValueType(type, value.type, at: clause.value.range)
            } else {
                throw ODataError(.internalError, "a case value is neither bound nor a literal")
            }
            bound.append(BoundClause(condition: conditions[index], value: value))
        }
        return BoundExpression(.conditional(bound), type: type, range: range)
    }

    /// The type of values of types `a` (the clauses so far) and `b` together, or a semantic error
    /// when they have none.
    private func commonValueType(_ a: BoundType, _ b: BoundType, at range: SourceRange) throws(ODataError) -> BoundType {
        switch b {
        case .primitive, .enumeration, .null: break
        default: throw binder.semantic("the values of case must be primitive values, not \(b)", at: range)
        }
        if a == .null { return b }
        if b == .null || a == b { return a }
        if let x = a.primitive, let y = b.primitive, let promoted = TypePromotion.promote(x, y) { return .primitive(promoted) }
        throw binder.semantic("the values of case must have one type: \(a) and \(b) differ", at: range)
    }
}
