/// Binds `$filter` and `$orderby` expressions: resolves member paths against range variables
/// (`$it` and lambda variables), checks operand types and applies numeric promotion, and converts
/// every literal to the stored form of the type it is compared or combined with.
struct ExpressionBinder {
    let binder: ODataBinder
    let aliases: [ParameterAliasSyntax]
    /// The entity set and type of `$it`, scope 0. Kept apart from the lambda variables, so a
    /// filter without lambdas allocates no array of scopes.
    let itSet: String
    let itType: EntityTypeReference
    /// Each enclosing lambda's variable: scope 1, 2, ...
    var lambdaScopes: [RangeVariable] = []
    /// Guards against alias cycles (`@a=@b&@b=@a`).
    private var aliasDepth = 0

    struct RangeVariable {
        enum Kind {
            case entity(set: String, type: EntityTypeReference)
            /// An item of a collection property; nil element type for complex or untyped items.
            case item(PrimitiveType?)
        }
        var name: String
        var kind: Kind
    }

    var model: MetadataModel { binder.model }

    /// The number of range variables in scope (`$it` and the lambda variables).
    var scopeCount: Int { lambdaScopes.count + 1 }

    init(binder: ODataBinder, entitySet: String, entityType: EntityTypeReference, aliases: [ParameterAliasSyntax]) {
        self.binder = binder
        self.aliases = aliases
        itSet = entitySet
        itType = entityType
    }

    mutating func bind(_ syntax: ExpressionSyntax) throws(ODataError) -> BoundExpression {
        switch syntax.kind {
        case .literal(let literal):
            return try bindLiteral(literal)
        case .parameterAlias(let name):
            return try bindAlias(name, at: syntax.range)
        case .path(let path):
            return try bindPath(path, range: syntax.range)
        case .binary:
            return try bindChain(syntax)
        case .unary(.not, let operand):
            let bound = try bind(operand)
            try requireBoolean(bound, at: operand.range, for: "not")
            return BoundExpression(.not(bound), type: .primitive(.boolean), range: syntax.range)
        case .unary(.negate, let operand):
            let bound = try bind(operand)
            guard bound.type == .null || bound.type.primitive.map(TypePromotion.isNumeric) == true || bound.type == .primitive(.duration) else {
                throw binder.semantic("'-' needs a number, not \(bound.type)", at: operand.range)
            }
            return BoundExpression(.negate(bound), type: bound.type, range: syntax.range)
        case .function(let function, let arguments):
            return try bindFunction(function, arguments, range: syntax.range)
        case .typeName(let name):
            throw binder.semantic("a type name '\(name)' can only be an argument of isof or cast", at: syntax.range)
        case .list:
            throw binder.semantic("a parenthesized list is only allowed after 'in'", at: syntax.range)
        case .array, .object:
            throw binder.unsupported("JSON array and object literals are not supported in offline $filter", at: syntax.range)
        case .conditional(let clauses):
            return try bindConditional(clauses, range: syntax.range)
        }
    }

    // MARK: Literals and aliases

    func bindLiteral(_ literal: LiteralSyntax) throws(ODataError) -> BoundExpression {
        if case .null = literal.kind { return BoundExpression(.null, type: .null, range: literal.range) }
        if case .enumeration(let typeName, let value) = literal.kind {
            guard let enumType = model.enumType(named: typeName) else {
                throw binder.semantic("unknown enumeration type '\(typeName)'", at: literal.range)
            }
            try checkEnumMembers(value, of: enumType, at: literal.range)
            return BoundExpression(.literal(.text(value)), type: .enumeration(enumType.qualifiedName), range: literal.range)
        }
        guard let type = LiteralCoercion.naturalType(literal), let value = LiteralCoercion.value(literal, as: type) else {
            throw binder.semantic("literal \(literal.text) is not a valid value", at: literal.range)
        }
        return BoundExpression(.literal(value), type: .primitive(type), range: literal.range)
    }

    func checkEnumMembers(_ value: String, of enumType: EnumType, at range: SourceRange) throws(ODataError) {
        for member in value.split(separator: ",") where !enumType.members.contains(where: { $0.name == member }) {
            throw binder.semantic("'\(member)' is not a member of '\(enumType.qualifiedName)'", at: range)
        }
    }

    private mutating func bindAlias(_ name: String, at range: SourceRange) throws(ODataError) -> BoundExpression {
        guard let alias = aliases.first(where: { $0.name == name }) else {
            throw binder.semantic("parameter alias @\(name) has no value in the query", at: range)
        }
        guard aliasDepth < 8 else { throw binder.semantic("parameter alias @\(name) refers to itself", at: range) }
        aliasDepth += 1
        defer { aliasDepth -= 1 }
        return try bind(alias.value)
    }

    /// The literal written in `syntax` (directly or through an alias), if it is one.
    func literalSyntax(_ syntax: ExpressionSyntax) -> LiteralSyntax? {
        // Case by case, so a path or an operator (most operands) is not copied to be looked at.
        if case .literal(let literal) = syntax.kind { return literal }
        if case .parameterAlias(let name) = syntax.kind {
            if let alias = aliases.first(where: { $0.name == name }), case .literal(let literal) = alias.value.kind { return literal }
        }
        return nil
    }

    /// `literal` as a value of `type` (the other operand's type, after promotion).
    func coerce(_ literal: LiteralSyntax, to type: BoundType, against other: BoundType, range: SourceRange) throws(ODataError) -> BoundExpression {
        if case .null = literal.kind { return BoundExpression(.null, type: .null, range: range) }
        switch type {
        case .primitive(let primitive):
            if let value = LiteralCoercion.value(literal, as: primitive) {
                return BoundExpression(.literal(value), type: type, range: literal.range)
            }
        case .enumeration(let name):
            if let enumType = model.enumType(named: name) {
                switch literal.kind {
                case .string(let value), .enumeration(_, let value):
                    if case .enumeration(let literalType, _) = literal.kind, model.qualifiedName(literalType) != enumType.qualifiedName { break }
                    try checkEnumMembers(value, of: enumType, at: literal.range)
                    return BoundExpression(.literal(.text(value)), type: type, range: literal.range)
                default: break
                }
            }
        default: break
        }
        throw binder.semantic("the literal \(literal.text) does not fit \(other), the type of the other operand", at: literal.range)
    }

    func requireBoolean(_ expression: BoundExpression, at range: SourceRange, for what: String) throws(ODataError) {
        guard expression.type == .primitive(.boolean) || expression.type == .null else {
            throw binder.semantic("'\(what)' needs a Boolean operand, not \(expression.type)", at: range)
        }
    }
}
