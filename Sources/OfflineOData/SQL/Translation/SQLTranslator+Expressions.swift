/// `$filter` and `$orderby` expressions to SQL, with OData's semantics (DESIGN.md §5):
/// - `eq`/`ne` treat null as a value (`IS`, `IS NOT`);
/// - an ordering comparison with a null operand is false, so `not (Rating gt 3)` is true where
///   Rating is null (URL Conventions §5.1.1.1.3; odatapy yields null there, the spec wins): in a
///   positive position SQL's NULL already excludes the row, elsewhere the result is coalesced to 0;
/// - other null-propagating operators (`and`, `or`, `not`, functions) keep SQL's three-valued
///   logic, which is OData's;
/// - decimals compare through the `OOD_DECIMAL` collation and compute with `ood_decimal_*`.
extension SQLTranslator {
    /// Where a range variable's values live: a table row (alias) or a `json_each` item.
    enum ScopeAlias {
        case entity(alias: String, table: EntitySetTable)
        case item(alias: String)
    }

    /// Whether a NULL result may stand for false (a positive position in a WHERE clause).
    enum Position { case condition, value }

    mutating func sql(_ expression: BoundExpression, _ scopes: [ScopeAlias], _ position: Position) throws(ODataError) -> String {
        expressionDepth += 1
        defer { expressionDepth -= 1 }
        guard expressionDepth <= Self.maxExpressionDepth else {
            throw ODataError(.unsupported, "unsupported: the expression is nested deeper than the offline store's limit of \(Self.maxExpressionDepth) levels (operators, parentheses and function calls inside one another)",
                             offset: expression.range.offset)
        }
        switch expression.kind {
        case .literal(let value):
            return parameters.add(value)
        case .null:
            return "NULL"
        case .member(let member):
            return try memberSQL(member, scopes)
        case .comparison(let op, let lhs, let rhs):
            return try comparison(op, lhs, rhs, scopes, position)
        case .and, .or:
            return try logicalChain(expression, scopes, position)
        case .not(let operand):
            return "(NOT \(try sql(operand, scopes, .value)))"
        case .arithmetic(let op, let lhs, let rhs):
            return try arithmetic(op, lhs, rhs, type: expression.type, scopes)
        case .negate(let operand):
            let inner = try sql(operand, scopes, .value)
            if operand.type == .primitive(.decimal) || operand.type == .primitive(.duration) { return "ood_decimal_sub(0, \(inner))" }
            if isReal(operand.type) { return "ood_real_mul(-1.0, \(inner))" }
            if Self.integerBits(operand) >= 64 { return "ood_int_sub(0, \(inner))" }
            return "(- \(inner))"
        case .function(let function, let arguments):
            return try functionSQL(function, arguments, type: expression.type, scopes)
        case .in(let operand, let items):
            return try inSQL(expression, operand, items, scopes, position)
        case .has(let operand, let flags):
            return try hasSQL(operand, flags, scopes)
        case .lambda(let lambda):
            return try quantifierSQL(lambda, of: expression, scopes, position)
        case .count(let source):
            return try countSQL(source, scopes)
        case .localState(let test, let scope):
            return try localStateSQL(test, scope, scopes)
        case .isOf(let types, let scope):
            let (alias, table) = try entityScope(scope, scopes, for: "isof")
            return "(\(typeCondition(types, table: table, alias: alias)))"
        case .entityCast(let types, let scope):
            let (alias, table) = try entityScope(scope, scopes, for: "cast")
            return "(CASE WHEN \(typeCondition(types, table: table, alias: alias)) THEN \(alias).\"_ood_id\" END)"
        case .primitiveCast(let operand):
            return try castSQL(operand, to: expression.type, scopes)
        case .conditional(let clauses):
            return try conditionalSQL(clauses, type: expression.type, scopes)
        }
    }

    /// `operand in (items)`: a semi-join along the operand's navigations where that is allowed,
    /// else SQL's `IN` over the listed values, a null item as an `IS NULL` test beside it.
    private mutating func inSQL(_ expression: BoundExpression, _ operand: BoundExpression, _ items: [BoundExpression],
                                _ scopes: [ScopeAlias], _ position: Position) throws(ODataError) -> String {
        if position == .condition, case .member(let member) = operand.kind, items.allSatisfy(Self.isRequestValue),
           !member.navigations.isEmpty,
           let semiJoin = try navigationSemiJoin(member, scopes, form: semiJoinAllowed(expression, scopes) ? .list : .correlated, test: { (translator: inout SQLTranslator, own: BoundMember, inner: [ScopeAlias]) throws(ODataError) -> String in
               try translator.sql(BoundExpression(.in(BoundExpression(.member(own), type: operand.type, range: operand.range), items),
                                                  type: expression.type, range: expression.range), inner, .condition)
           }) {
            return semiJoin
        }
        let value = try sql(operand, scopes, .value)
        let collate = isDecimal(operand.type) ? " COLLATE \"OOD_DECIMAL\"" : ""
        var listed: [String] = []
        var hasNull = false
        for item in items {
            if case .null = item.kind { hasNull = true; continue }
            listed.append(try sql(item, scopes, .value))
        }
        // Every parameter must appear in the text, so an empty list still mentions the operand.
        var test = listed.isEmpty ? "(\(value) IS NULL AND 0)" : "\(value)\(collate) IN (\(listed.joined(separator: ", ")))"
        // NaN is in no list, even one that lists NaN.
        if !listed.isEmpty, Self.mayBeNaN(operand) { test += " AND \(value) IS NOT 'NaN'" }
        if position == .value && !listed.isEmpty { test = "coalesce(\(test), 0)" }
        return hasNull ? "(\(value) IS NULL OR \(test))" : "(\(test))"
    }

    /// `operand has flags`: each flag member's name found in the stored comma-separated list.
    private mutating func hasSQL(_ operand: BoundExpression, _ flags: BoundValue, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        let value = try sql(operand, scopes, .value)
        guard case .text(let members) = flags else { return "0" }
        var terms: [String] = []
        for member in members.split(separator: ",") {
            terms.append("instr(',' || replace(\(value), ' ', '') || ',', ',' || \(parameters.add(SQLValue.text(String(member)))) || ',') > 0")
        }
        return "(" + (terms.isEmpty ? "\(value) IS NOT NULL" : terms.joined(separator: " AND ")) + ")"
    }

    /// `any` or `all`: a semi-join (`any`) or anti-join (`all`) where one is allowed and
    /// chosen, else the correlated subquery of ``lambdaSQL(_:_:)``.
    private mutating func quantifierSQL(_ lambda: BoundLambda, of expression: BoundExpression, _ scopes: [ScopeAlias],
                                    _ position: Position) throws(ODataError) -> String {
        if position == .condition, lambda.quantifier == .any, semiJoinAllowed(expression, scopes),
           let semiJoin = try anySemiJoin(lambda, scopes) { return semiJoin }
        if lambda.quantifier == .all, semiJoinUse == .always {
            decideAntiJoins()
            if antiJoinsReadIndexes { readsIndexes = true }
            if antiJoins, let antiJoin = try allAntiJoin(lambda, scopes) { return antiJoin }
        }
        return try lambdaSQL(lambda, scopes)
    }

    /// `isLocal()`, `hasPendingChanges()`, `inErrorState()`: the row's own change columns.
    private func localStateSQL(_ test: LocalStateTest, _ scope: Int, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        let alias = try entityAlias(scope, scopes)
        switch test {
        case .isLocal: return "(\(alias).\"_ood_change\" IS 'created')"
        case .hasPendingChanges: return "(\(alias).\"_ood_change\" IS NOT NULL)"
        case .inErrorState: return "(\(alias).\"_ood_error\" <> 0)"
        }
    }

    /// The row of range variable `scope` for `isof` and `cast` to an entity type; `function`
    /// names the one that met a scope which is no entity, in the error.
    private func entityScope(_ scope: Int, _ scopes: [ScopeAlias], for function: String) throws(ODataError) -> (String, EntitySetTable) {
        guard case .entity(let alias, let table)? = scopes.indices.contains(scope) ? scopes[scope] : nil else {
            throw ODataError(.internalError, "\(function) without an entity scope")
        }
        return (alias, table)
    }

    /// `case(condition: value, ...)` as SQL's `CASE WHEN ... THEN ... END`.
    private mutating func conditionalSQL(_ clauses: [BoundClause], type: BoundType, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        var text = "(CASE"
        for clause in clauses {
            let condition = try sql(clause.condition, scopes, .value)
            text += " WHEN \(condition) THEN \(try self.operand(clause.value, as: type.primitive, scopes))"
        }
        return text + " END)"
    }

    /// `cast(value, Edm.Type)`: `ood_cast` between the two stored forms, their codes bound.
    private mutating func castSQL(_ operand: BoundExpression, to type: BoundType, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        let value = try sql(operand, scopes, .value)
        guard let source = operand.type.primitive.flatMap(PrimitiveCast.Form.init),
              let target = type.primitive.flatMap(PrimitiveCast.Form.init) else {
            throw ODataError(.internalError, "cast between \(operand.type) and \(type)")
        }
        if source == target { return value }
        return "ood_cast(\(value), \(parameters.add(SQLValue.integer(source.rawValue))), \(parameters.add(SQLValue.integer(target.rawValue))))"
    }

    /// An `and` or `or` and the same operators down its left side (the binder's tree of
    /// `a and b and c ...` is left-deep, as long as the chain): collected without recursing, each
    /// operand translated one level down, joined flat (`a AND b AND c`, which SQLite parses with a
    /// constant parser stack) in groups of ``logicalGroupSize``. Both operators are associative
    /// in SQL's three-valued logic as in OData's, so the grouping keeps the result.
    private mutating func logicalChain(_ expression: BoundExpression, _ scopes: [ScopeAlias], _ position: Position) throws(ODataError) -> String {
        let isAnd: Bool
        if case .and = expression.kind { isAnd = true } else { isAnd = false }
        var operands: [BoundExpression] = []
        var current = expression
        while true {
            if isAnd, case .and(let lhs, let rhs) = current.kind {
                operands.append(rhs)
                current = lhs
            } else if !isAnd, case .or(let lhs, let rhs) = current.kind {
                operands.append(rhs)
                current = lhs
            } else {
                break
            }
        }
        operands.append(current)
        logicalOperands += operands.count
        guard logicalOperands <= Self.maxLogicalOperands else {
            throw ODataError(.unsupported, "unsupported: the filter joins more than \(Self.maxLogicalOperands) conditions with 'and' or 'or', more than the offline store compiles in reasonable time; a long list of values can be written with 'in'",
                             offset: expression.range.offset)
        }
        var terms: [String] = []
        terms.reserveCapacity(operands.count)
        for operand in operands.reversed() {
            terms.append(try sql(operand, scopes, position))
        }
        let separator = isAnd ? " AND " : " OR "
        let size = Self.logicalGroupSize
        while terms.count > size {
            terms = stride(from: 0, to: terms.count, by: size).map { start in
                "(" + terms[start..<min(start + size, terms.count)].joined(separator: separator) + ")"
            }
        }
        return "(" + terms.joined(separator: separator) + ")"
    }

    func isDecimal(_ type: BoundType) -> Bool { type == .primitive(.decimal) || type == .primitive(.duration) }

    private func entityAlias(_ scope: Int, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        guard scopes.indices.contains(scope), case .entity(let alias, _) = scopes[scope] else {
            throw ODataError(.internalError, "range variable \(scope) is not an entity")
        }
        return alias
    }

    /// A property value: a column of the range variable's row, or a scalar subquery along to-one
    /// navigations; null where a type-cast segment names a type the entity is not of.
    mutating func memberSQL(_ member: BoundMember, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        guard scopes.indices.contains(member.scope) else { throw ODataError(.internalError, "range variable \(member.scope) is missing") }
        switch scopes[member.scope] {
        case .item(let alias):
            return "\(alias).value"
        case .entity(let alias, let table):
            return try memberSQL(navigations: member.navigations[...], propertyPath: member.propertyPath, casts: member.casts,
                                 alias: alias, table: table)
        }
    }

    private mutating func memberSQL(navigations: ArraySlice<BoundNavigation>, propertyPath: [String], casts: [BoundTypeCast],
                                    alias: String, table: EntitySetTable) throws(ODataError) -> String {
        let hop = navigations.startIndex
        var value: String
        if let navigation = navigations.first {
            let target = try self.table(navigation.targetSet)
            let next = newAlias()
            let inner = try memberSQL(navigations: navigations.dropFirst(), propertyPath: propertyPath, casts: casts, alias: next, table: target)
            let condition = try related(navigation, source: alias, target: next)
            value = "(SELECT \(inner) FROM \(target.quotedName) AS \(next) WHERE \(condition) AND \(Self.notDeleted(next)) LIMIT 1)"
        } else {
            value = propertyPath.isEmpty ? "\(alias).\"_ood_id\"" : "\(alias).\(try column(table, propertyPath).quotedName)"
        }
        if let condition = castCondition(casts, hop: hop, table: table, alias: alias) { value = "(CASE WHEN \(condition) THEN \(value) END)" }
        return value
    }

    /// The type tests of the cast segments at `hop` of a path, on the entity `alias`; nil without any.
    mutating func castCondition(_ casts: [BoundTypeCast], hop: Int, table: EntitySetTable, alias: String) -> String? {
        let tests = casts.filter { $0.hop == hop }.map { typeCondition($0.types, table: table, alias: alias) }
        return tests.isEmpty ? nil : tests.joined(separator: " AND ")
    }

    // MARK: Comparison and arithmetic

    /// The common type two operands are compared or combined in.
    private func commonType(_ lhs: BoundType, _ rhs: BoundType) -> PrimitiveType? {
        guard let a = lhs.primitive ?? rhs.primitive else { return nil }
        let b = rhs.primitive ?? a
        return TypePromotion.promote(a, b) ?? a
    }

    /// `expression` converted to the stored form of `type` (numeric promotion only).
    mutating func operand(_ expression: BoundExpression, as type: PrimitiveType?, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        let text = try sql(expression, scopes, .value)
        guard let type, let own = expression.type.primitive, own != type else { return text }
        switch type {
        case .double, .single:
            guard own == .decimal else { return text }
            // A computed decimal may be a divby zero's INF, -INF or NaN text, which CAST makes 0.
            return Self.mayBeNaN(expression) ? "ood_real_add(\(text), 0.0)" : "CAST(\(text) AS REAL)"
        case .decimal:
            return TypePromotion.isInteger(own) ? "CAST(\(text) AS TEXT)" : text
        default:
            return text
        }
    }

    private mutating func comparison(_ op: ComparisonOperator, _ lhs: BoundExpression, _ rhs: BoundExpression,
                                     _ scopes: [ScopeAlias], _ position: Position) throws(ODataError) -> String {
        let lhsNull = lhs.type == .null, rhsNull = rhs.type == .null
        if lhsNull || rhsNull {
            let other = lhsNull ? rhs : lhs
            switch op {
            case .eq: return lhsNull && rhsNull ? "1" : "(\(try sql(other, scopes, .value)) IS NULL)"
            case .ne: return lhsNull && rhsNull ? "0" : "(\(try sql(other, scopes, .value)) IS NOT NULL)"
            default:
                // Never true. A computed operand is still evaluated per row (`x IS NOT x` is false
                // for every value and SQLite does not fold it), so `Score mod 0 gt null` fails the
                // request as its `mod` by zero must, instead of selecting nothing.
                switch other.kind {
                case .null, .literal, .member: return "0"
                default:
                    let value = try sql(other, scopes, .value)
                    return "(\(value) IS NOT \(value))"
                }
            }
        }
        if position == .condition, op != .ne, isNavigationMember(lhs) || isNavigationMember(rhs) {
            let listed = semiJoinAllowed(BoundExpression(.comparison(op, lhs, rhs), type: .primitive(.boolean), range: lhs.range), scopes)
            if let semiJoin = try navigationComparison(op, lhs, rhs, scopes, form: listed ? .list : .correlated) { return semiJoin }
        }
        let type = commonType(lhs.type, rhs.type)
        let left = try operand(lhs, as: type, scopes), right = try operand(rhs, as: type, scopes)
        let collate = type == .decimal || type == .duration ? " COLLATE \"OOD_DECIMAL\"" : ""
        // NaN (stored as the text 'NaN', which SQLite sorts after every number) equals nothing,
        // itself included, and is neither less nor greater than anything (URL Conventions §5.1.1.1).
        let leftNaN = Self.mayBeNaN(lhs), rightNaN = Self.mayBeNaN(rhs)
        switch op {
        case .eq:
            return leftNaN && rightNaN ? "(\(left)\(collate) IS \(right) AND \(left) IS NOT 'NaN')" : "(\(left)\(collate) IS \(right))"
        case .ne:
            return leftNaN && rightNaN ? "(\(left)\(collate) IS NOT \(right) OR \(left) IS 'NaN')" : "(\(left)\(collate) IS NOT \(right))"
        default:
            let symbol = switch op {
            case .gt: ">"
            case .ge: ">="
            case .lt: "<"
            default: "<="
            }
            var test = "\(left)\(collate) \(symbol) \(right)"
            // Only the greater side can be text: `NaN > x` and `NaN >= NaN` would hold.
            let leftIsGreater = op == .gt || op == .ge
            let greater = leftIsGreater ? lhs : rhs
            if case .literal(.real(let number)) = greater.kind, number.isNaN {
                // Never true; `x IS NOT x` (false for every value) keeps it depending on the other
                // side, so SQLite still evaluates that per row (a `mod` by zero there still fails)
                // instead of skipping the rows for a constant false condition.
                let other = leftIsGreater ? right : left
                test += " AND \(other) IS NOT \(other)"
            } else if leftIsGreater ? leftNaN : rightNaN {
                test += " AND \(leftIsGreater ? left : right) IS NOT 'NaN'"
            }
            return position == .condition ? "(\(test))" : "coalesce(\(test), 0)"
        }
    }

    func isReal(_ type: BoundType) -> Bool { type == .primitive(.double) || type == .primitive(.single) }

    /// Whether `expression` may be NaN: a Double or Single that is not a finite literal (a stored
    /// value, arithmetic, a cast), or a Decimal computed with `divby` (zero gives NaN).
    static func mayBeNaN(_ expression: BoundExpression) -> Bool {
        switch expression.type {
        case .primitive(.double), .primitive(.single):
            if case .literal(.real(let number)) = expression.kind { return number.isNaN }
            if case .literal = expression.kind { return false }
            return true
        case .primitive(.decimal):
            switch expression.kind {
            case .arithmetic, .negate, .function, .conditional: return true
            default: return false
            }
        default:
            return false
        }
    }

    /// A bound on the bits (sign included) of an integer expression's values: an operation whose
    /// result may need more than 63 goes through the `ood_int_*` functions, which fail on a 64-bit
    /// overflow instead of SQLite's silent change to an inexact REAL.
    static func integerBits(_ expression: BoundExpression) -> Int {
        switch expression.kind {
        case .literal(.integer(let number)):
            return 65 - (number < 0 ? ~number : number).leadingZeroBitCount
        case .member:
            switch expression.type.primitive {
            case .byte?: return 9
            case .sByte?: return 8
            case .int16?: return 16
            case .int32?: return 32
            default: return 64
            }
        case .arithmetic(let op, let lhs, let rhs):
            let a = integerBits(lhs), b = integerBits(rhs)
            switch op {
            case .add, .sub: return max(a, b) + 1
            case .mul: return a + b - 1
            case .mod: return min(a, b)
            case .div, .divby: return a + 1
            }
        case .negate(let operand):
            return integerBits(operand) + 1
        default:
            return 64
        }
    }

    /// Whether `operand` is a property reached through navigations (a semi-join candidate).
    private func isNavigationMember(_ operand: BoundExpression) -> Bool {
        if case .member(let member) = operand.kind { return !member.navigations.isEmpty }
        return false
    }

    /// A comparison of a member through navigations with a value of the request as semi-joins
    /// (``navigationSemiJoin(_:_:test:)``); nil when it is not one. `ne` is not passed here: it is
    /// true of a null value.
    private mutating func navigationComparison(_ op: ComparisonOperator, _ lhs: BoundExpression, _ rhs: BoundExpression,
                                               _ scopes: [ScopeAlias], form: JoinForm) throws(ODataError) -> String? {
        let memberOnLeft: Bool
        let member: BoundMember
        if case .member(let left) = lhs.kind, Self.isRequestValue(rhs) {
            memberOnLeft = true
            member = left
        } else if case .member(let right) = rhs.kind, Self.isRequestValue(lhs) {
            memberOnLeft = false
            member = right
        } else {
            return nil
        }
        return try navigationSemiJoin(member, scopes, form: form) { (translator: inout SQLTranslator, own: BoundMember, inner: [ScopeAlias]) throws(ODataError) -> String in
            let moved = BoundExpression(.member(own), type: memberOnLeft ? lhs.type : rhs.type, range: memberOnLeft ? lhs.range : rhs.range)
            return try translator.comparison(op, memberOnLeft ? moved : lhs, memberOnLeft ? rhs : moved, inner, .condition)
        }
    }

    private mutating func arithmetic(_ op: ArithmeticOperator, _ lhs: BoundExpression, _ rhs: BoundExpression, type: BoundType,
                                     _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        guard let result = type.primitive else { return "NULL" }
        let operandType: PrimitiveType = (op == .divby && result == .decimal) ? .decimal : result
        let left = try operand(lhs, as: operandType, scopes), right = try operand(rhs, as: operandType, scopes)
        if operandType == .decimal {
            switch op {
            case .add: return "ood_decimal_add(\(left), \(right))"
            case .sub: return "ood_decimal_sub(\(left), \(right))"
            case .mul: return "ood_decimal_mul(\(left), \(right))"
            case .div: return "ood_decimal_div(\(left), \(right))"
            // divby never fails: a zero divisor gives INF, -INF or NaN.
            case .divby: return "ood_decimal_divby(\(left), \(right))"
            case .mod:
                let quotient = "ood_decimal_div(\(left), \(right))"
                let truncated = "CASE WHEN \(quotient) COLLATE \"OOD_DECIMAL\" < '0' THEN ood_decimal_ceiling(\(quotient)) ELSE ood_decimal_floor(\(quotient)) END"
                return "ood_decimal_sub(\(left), ood_decimal_mul(\(right), \(truncated)))"
            }
        }
        if TypePromotion.isInteger(operandType) {
            // SQLite's own operators where no 64-bit overflow is possible (the common case, fast).
            let mayOverflow = Self.integerBits(BoundExpression(.arithmetic(op, lhs, rhs), type: type, range: lhs.range)) > 63
            switch op {
            case .add: return mayOverflow ? "ood_int_add(\(left), \(right))" : "(\(left) + \(right))"
            case .sub: return mayOverflow ? "ood_int_sub(\(left), \(right))" : "(\(left) - \(right))"
            case .mul: return mayOverflow ? "ood_int_mul(\(left), \(right))" : "(\(left) * \(right))"
            case .div, .divby: return "ood_int_div(\(left), \(right))"
            case .mod: return "ood_int_mod(\(left), \(right))"
            }
        }
        // Double and Single: IEEE 754 (INF, -INF, NaN), mod as fmod (the dividend's sign).
        switch op {
        case .add: return "ood_real_add(\(left), \(right))"
        case .sub: return "ood_real_sub(\(left), \(right))"
        case .mul: return "ood_real_mul(\(left), \(right))"
        case .div, .divby: return "ood_real_div(\(left), \(right))"
        case .mod: return "ood_real_mod(\(left), \(right))"
        }
    }
}
