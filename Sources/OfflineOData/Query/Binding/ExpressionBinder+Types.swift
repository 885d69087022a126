/// OData 4.01's type functions, `cast` and `isof`, with one argument (the current instance) or two
/// (an expression and a type):
///
/// - On entities: `isof(Model.Derived)`, `isof($it, Model.Derived)` or of a lambda variable is
///   true when the entity's concrete type (the store keeps it in `_ood_type`) is that type or
///   derives from it; `cast(...)` with an entity type is the entity or null, for `eq null`/`ne null`.
/// - On primitive values: `cast(Price, Edm.String)` converts (``PrimitiveCast``: null where the
///   cast is impossible); `isof(Seats, Edm.Int64)` is true when the value is not null and its
///   type is that type or widens to it without loss (an integer type to a wider one or to
///   Edm.Decimal, Edm.Single to Edm.Double).
extension ExpressionBinder {
    mutating func bindTypeFunction(_ function: CanonicalFunction, _ arguments: [ExpressionSyntax], range: SourceRange) throws(ODataError) -> BoundExpression {
        guard let last = arguments.last, let name = Self.typeName(last) else {
            throw binder.semantic("\(function.rawValue) needs a type name as its last argument (\(function.rawValue)(Edm.String) or \(function.rawValue)(Price,Edm.String))", at: range)
        }
        let isCast = function == .cast
        let operand: BoundExpression? = try arguments.count == 2 ? arguments.first.map { (syntax: ExpressionSyntax) throws(ODataError) in try bind(syntax) } : nil
        if let target = model.entityType(named: name) {
            let scope = try entityScope(of: operand, function: function, at: arguments.first?.range ?? range)
            let types = binder.typesAdmitted(by: target)
            if isCast { return BoundExpression(.entityCast(types: types, scope: scope), type: .entity(target.qualifiedName), range: range) }
            return BoundExpression(.isOf(types: types, scope: scope), type: .primitive(.boolean), range: range)
        }
        if let enumType = model.enumType(named: name) {
            guard !isCast else { throw binder.unsupported("cast to the enumeration type '\(name)' is not supported in offline $filter", at: last.range) }
            guard let operand, operand.type == .enumeration(enumType.qualifiedName) else { return Self.falseValue(range) }
            return Self.isNotNull(operand, range)
        }
        guard let target = PrimitiveType(rawValue: name) else {
            if model.complexType(named: name) != nil {
                throw binder.unsupported("\(function.rawValue) with the complex type '\(name)' is not supported in offline $filter", at: last.range)
            }
            if arguments.count == 1, model.property(name, of: itType.type) != nil {
                throw binder.semantic("unknown type '\(name)': it is a property; name the type too, \(function.rawValue)(\(name),Edm.String)", at: last.range)
            }
            throw binder.semantic("unknown type '\(name)'", at: last.range)
        }
        guard PrimitiveCast.Form(target) != nil else {
            throw binder.unsupported("\(function.rawValue) with \(name) is not supported in offline $filter", at: last.range)
        }
        guard let operand else {
            // The current instance is an entity, never of a primitive type.
            if isCast { throw binder.semantic("cast(\(name)) would cast the entity itself; name the value: cast(Property,\(name))", at: range) }
            return Self.falseValue(range)
        }
        let source: PrimitiveType
        switch operand.type {
        case .null:
            return isCast ? BoundExpression(.null, type: .primitive(target), range: range) : Self.falseValue(range)
        case .primitive(let type):
            source = type
        case .enumeration:
            // An enumeration member casts to its name; it is of no primitive type.
            guard isCast else { return Self.falseValue(range) }
            guard target == .string else { return BoundExpression(.null, type: .primitive(target), range: range) }
            return BoundExpression(.primitiveCast(BoundExpression(operand.kind, type: .primitive(.string), range: operand.range)),
                                   type: .primitive(.string), range: range)
        default:
            guard isCast else { return Self.falseValue(range) }
            throw binder.semantic("cannot cast \(operand.type) to \(name)", at: arguments.first?.range ?? range)
        }
        if !isCast { return Self.widens(source, to: target) ? Self.isNotNull(operand, range) : Self.falseValue(range) }
        guard PrimitiveCast.Form(source) != nil else {
            throw binder.unsupported("cast from \(source.rawValue) is not supported in offline $filter", at: arguments.first?.range ?? range)
        }
        return BoundExpression(.primitiveCast(operand), type: .primitive(target), range: range)
    }

    /// The type name written as the last argument: a name (`Edm.String`, `Model.Derived`) or,
    /// as V3 wrote it, a string (`'Model.Derived'`).
    private static func typeName(_ syntax: ExpressionSyntax) -> String? {
        switch syntax.kind {
        case .typeName(let name): return name
        case .literal(let literal):
            if case .string(let name) = literal.kind { return name }
            return nil
        default: return nil
        }
    }

    /// The range variable an entity `isof`/`cast` applies to: `$it` without an operand, else the
    /// operand's, which must be `$it`, `$this` or a lambda variable over entities.
    private func entityScope(of operand: BoundExpression?, function: CanonicalFunction, at range: SourceRange) throws(ODataError) -> Int {
        guard let operand else { return 0 }
        guard case .member(let member) = operand.kind, case .entity = operand.type else {
            throw binder.semantic("\(function.rawValue) with an entity type needs an entity, not \(operand.type)", at: range)
        }
        guard member.navigations.isEmpty, member.propertyPath.isEmpty else {
            throw binder.unsupported("\(function.rawValue) of a related entity is not supported in offline $filter; use \(function.rawValue)(Type) inside any() or on the entity itself", at: range)
        }
        return member.scope
    }

    /// Whether every value of `source` is also a value of `target`.
    private static func widens(_ source: PrimitiveType, to target: PrimitiveType) -> Bool {
        if source == target { return true }
        if let sourceRange = PrimitiveCast.Form(source)?.integerRange {
            if target == .decimal { return true }
            guard let targetRange = PrimitiveCast.Form(target)?.integerRange else { return false }
            return targetRange.contains(sourceRange.lowerBound) && targetRange.contains(sourceRange.upperBound)
        }
        return source == .single && target == .double
    }

    private static func isNotNull(_ operand: BoundExpression, _ range: SourceRange) -> BoundExpression {
        BoundExpression(.comparison(.ne, operand, BoundExpression(.null, type: .null, range: range)), type: .primitive(.boolean), range: range)
    }

    private static func falseValue(_ range: SourceRange) -> BoundExpression {
        BoundExpression(.literal(.integer(0)), type: .primitive(.boolean), range: range)
    }
}
