@_spi(Tool) @testable import OfflineOData

/// A compact text form of expression trees, for comparing grouping without comparing JSON.
///
/// Chains of operators of one precedence level are written flat (`[a sub b add c]`), so two trees
/// that group by precedence the same way compare equal whatever their associativity: the auth0
/// fixtures nest `and`/`add` chains to the right, the OData spec (and this parser) to the left.
enum ExpressionShape {
    static func of(_ expression: ExpressionSyntax) -> String {
        switch expression.kind {
        case .binary(let op, _, _):
            return "[" + chain(expression, level: op.precedence).joined(separator: " ") + "]"
        case .unary(let op, let operand):
            return "(\(op.rawValue) \(of(operand)))"
        case .literal(let literal):
            switch literal.kind {
            case .string(let value): return value
            case .null: return "null"
            default: return literal.text
            }
        case .path(let path):
            return path.segments.map { segment in
                if case .name(let name) = segment.kind { return name }
                return "?"
            }.joined(separator: "/")
        case .function(let function, let arguments):
            return "\(function.rawValue)(" + arguments.map(of).joined(separator: ",") + ")"
        case .parameterAlias(let name): return "@" + name
        case .typeName(let name): return name
        case .list(let items): return "(" + items.map(of).joined(separator: ",") + ")"
        case .array(let items): return "[" + items.map(of).joined(separator: ",") + "]"
        case .conditional(let clauses): return "case(" + clauses.map { of($0.condition) + ":" + of($0.value) }.joined(separator: ",") + ")"
        case .object(let members): return "{" + members.map { "\($0.name):" + of($0.value) }.joined(separator: ",") + "}"
        }
    }

    private static func chain(_ expression: ExpressionSyntax, level: Int) -> [String] {
        if case .binary(let op, let left, let right) = expression.kind, op.precedence == level {
            return chain(left, level: level) + [op.rawValue] + chain(right, level: level)
        }
        return [of(expression)]
    }

    /// The same form for an auth0 expected AST (`{type, left, right}`, `property`, `literal`).
    static func of(auth0 node: JSONValue) -> String {
        guard let type = node["type"]?.text else { return "?" }
        if type == "property" { return node["name"]?.text ?? "?" }
        if type == "literal" { return node["value"]?.text ?? "null" }
        guard let op = BinaryOperator(rawValue: type) else { return "?" + type }
        return "[" + auth0Chain(node, level: op.precedence).joined(separator: " ") + "]"
    }

    private static func auth0Chain(_ node: JSONValue, level: Int) -> [String] {
        if let type = node["type"]?.text, let op = BinaryOperator(rawValue: type), op.precedence == level,
           let left = node["left"], let right = node["right"] {
            return auth0Chain(left, level: level) + [type] + auth0Chain(right, level: level)
        }
        return [of(auth0: node)]
    }
}
