/// Whether a read lies inside the scope of a defining request: every entity the read can return
/// is one the defining request brings (DESIGN.md §4.1, "explain ... why").
///
/// The check is sound, not complete: it answers true only when it can prove the implication, for
/// reads of the defining request's entity set whose filter (and key) is a conjunction that implies
/// each conjunct of the defining filter. A conjunct is implied by an identical conjunct, or, for
/// comparisons of the same property with literals, by a narrower comparison (`Rating gt 4` implies
/// `Rating ge 3`; `City eq 'Rome'` implies `City in ('Rome','Paris')` and `City ne 'Oslo'`).
/// A defining request's `$search` is implied only by the same search. Anything else
/// (disjunctions, functions of different shape, navigation reads) is "not proven".
enum ScopeCheck {
    static func isInside(read: BoundRequest, defining: BoundRequest) -> Bool {
        guard let readPath = read.path, let definingPath = defining.path,
              definingPath.steps.isEmpty, definingPath.rootKey == nil, definingPath.castTypes == nil,
              readPath.rootSet == definingPath.rootSet else { return false }
        // A defining `$search` is proven only by the same search in the read.
        if let definingSearch = defining.options.search, read.options.search != definingSearch { return false }
        guard let definingFilter = defining.options.filter else { return true }
        // Through a navigation the read reaches other sets' entities, which this check does not follow.
        guard readPath.steps.isEmpty else { return false }
        var facts = conjuncts(read.options.filter)
        for key in readPath.rootKey ?? [] {
            facts.append(Atom.comparison(path: [key.property], op: .eq, value: key.value, type: .primitive(key.type)))
        }
        return conjuncts(definingFilter).allSatisfy { goal in facts.contains { implies($0, goal) } }
    }

    /// What the checker understands of one conjunct.
    enum Atom {
        case comparison(path: [String], op: ComparisonOperator, value: BoundValue, type: BoundType)
        case membership(path: [String], values: [BoundValue], type: BoundType)
        /// Any other conjunct, by its shape (implied only by an identical one).
        case opaque(String)
    }

    static func conjuncts(_ expression: BoundExpression?) -> [Atom] {
        guard let expression else { return [] }
        // Depth first, left to right, with a stack of its own: an `and` chain is as deep as it is long.
        var atoms: [Atom] = []
        var pending = [expression]
        while let next = pending.popLast() {
            if case .and(let lhs, let rhs) = next.kind {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                atoms.append(atom(next))
            }
        }
        return atoms
    }

    static func atom(_ expression: BoundExpression) -> Atom {
        switch expression.kind {
        case .comparison(let op, let lhs, let rhs):
            if let path = plainPath(lhs), case .literal(let value) = rhs.kind { return .comparison(path: path, op: op, value: value, type: lhs.type) }
            if let path = plainPath(rhs), case .literal(let value) = lhs.kind { return .comparison(path: path, op: mirrored(op), value: value, type: rhs.type) }
        case .in(let operand, let items):
            if let path = plainPath(operand) {
                var values: [BoundValue] = []
                for item in items {
                    guard case .literal(let value) = item.kind else { return .opaque(shape(expression)) }
                    values.append(value)
                }
                return .membership(path: path, values: values, type: operand.type)
            }
        default:
            break
        }
        return .opaque(shape(expression))
    }

    private static func plainPath(_ expression: BoundExpression) -> [String]? {
        guard case .member(let member) = expression.kind, member.scope == 0, member.navigations.isEmpty, !member.propertyPath.isEmpty else { return nil }
        return member.propertyPath
    }

    private static func mirrored(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .gt: .lt
        case .ge: .le
        case .lt: .gt
        case .le: .ge
        default: op
        }
    }

    static func implies(_ fact: Atom, _ goal: Atom) -> Bool {
        switch (fact, goal) {
        case (.opaque(let a), .opaque(let b)):
            return a == b
        case (.membership(let path, let values, let type), .membership(let goalPath, let goalValues, _)):
            return path == goalPath && values.allSatisfy { value in goalValues.contains { compare($0, value, type) == 0 } }
        case (.comparison(let path, .eq, let value, let type), .membership(let goalPath, let goalValues, _)):
            return path == goalPath && goalValues.contains { compare($0, value, type) == 0 }
        case (.membership(let path, let values, let type), .comparison(let goalPath, let op, let bound, _)):
            return path == goalPath && !values.isEmpty && values.allSatisfy { satisfies($0, op, bound, type) == true }
        case (.comparison(let path, let op, let value, let type), .comparison(let goalPath, let goalOp, let bound, _)):
            guard path == goalPath else { return false }
            if op == .eq { return satisfies(value, goalOp, bound, type) == true }
            guard let order = compare(value, bound, type) else { return false }
            switch (op, goalOp) {
            case (.ne, .ne): return order == 0
            case (.gt, .gt), (.gt, .ge): return order >= 0
            case (.ge, .ge): return order >= 0
            case (.ge, .gt): return order > 0
            case (.lt, .lt), (.lt, .le): return order <= 0
            case (.le, .le): return order <= 0
            case (.le, .lt): return order < 0
            case (.gt, .ne): return order >= 0
            case (.ge, .ne): return order > 0
            case (.lt, .ne): return order <= 0
            case (.le, .ne): return order < 0
            default: return false
            }
        default:
            return false
        }
    }

    /// Whether `value op bound` holds; nil when the values cannot be compared.
    private static func satisfies(_ value: BoundValue, _ op: ComparisonOperator, _ bound: BoundValue, _ type: BoundType) -> Bool? {
        guard let order = compare(value, bound, type) else { return nil }
        switch op {
        case .eq: return order == 0
        case .ne: return order != 0
        case .gt: return order > 0
        case .ge: return order >= 0
        case .lt: return order < 0
        case .le: return order <= 0
        }
    }

    /// Orders two stored values of one type: numbers numerically, decimals exactly, text by bytes
    /// (which is the order of the canonical date and time forms).
    static func compare(_ lhs: BoundValue, _ rhs: BoundValue, _ type: BoundType) -> Int? {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.real(let a), .real(let b)): return a < b ? -1 : a > b ? 1 : a == b ? 0 : nil
        case (.integer(let a), .real(let b)): return Double(a) < b ? -1 : Double(a) > b ? 1 : 0
        case (.real(let a), .integer(let b)): return a < Double(b) ? -1 : a > Double(b) ? 1 : 0
        case (.text(let a), .text(let b)):
            if type == .primitive(.decimal) || type == .primitive(.duration), let x = ExactDecimal(a), let y = ExactDecimal(b) {
                return ExactDecimal.compare(x, y)
            }
            let x = Array(a.utf8), y = Array(b.utf8)
            return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
        case (.bytes(let a), .bytes(let b)): return a == b ? 0 : a.lexicographicallyPrecedes(b) ? -1 : 1
        default: return nil
        }
    }

    /// A structural fingerprint of an expression, for "the same conjunct". Binary operators down
    /// the left side (a chain as long as the filter, `a or b or c ...`) are walked without recursing.
    static func shape(_ expression: BoundExpression) -> String {
        var labels: [String] = []
        var rights: [BoundExpression] = []
        var current = expression
        while let (label, lhs, rhs) = binaryParts(current) {
            labels.append(label)
            rights.append(rhs)
            current = lhs
        }
        var text = ""
        for label in labels { text += label + "(" }
        text += leafShape(current)
        for rhs in rights.reversed() { text += "," + shape(rhs) + ")" }
        return text
    }

    private static func binaryParts(_ expression: BoundExpression) -> (String, BoundExpression, BoundExpression)? {
        switch expression.kind {
        case .comparison(let op, let a, let b): return (op.rawValue, a, b)
        case .and(let a, let b): return ("and", a, b)
        case .or(let a, let b): return ("or", a, b)
        case .arithmetic(let op, let a, let b): return (op.rawValue, a, b)
        default: return nil
        }
    }

    private static func leafShape(_ expression: BoundExpression) -> String {
        switch expression.kind {
        case .literal(let value): return "lit(\(value))"
        case .null: return "null"
        case .member(let member):
            let casts = member.casts.map { "@\($0.hop):\($0.types.joined(separator: ","))" }.joined()
            return "m\(member.scope)(\(member.navigations.map(\.name).joined(separator: "/"))|\(member.propertyPath.joined(separator: "/"))\(casts))"
        case .comparison, .and, .or, .arithmetic: return shape(expression)
        case .not(let a): return "not(\(shape(a)))"
        case .negate(let a): return "neg(\(shape(a)))"
        case .function(let function, let arguments): return "\(function.rawValue)(\(arguments.map(shape).joined(separator: ",")))"
        case .in(let a, let items): return "in(\(shape(a)),\(items.map(shape).joined(separator: ",")))"
        case .has(let a, let value): return "has(\(shape(a)),\(value))"
        case .localState(let test, let scope): return "local(\(test),\(scope))"
        case .isOf(let types, let scope): return "isof(\(types),\(scope))"
        case .primitiveCast(let a): return "cast(\(shape(a)),\(expression.type))"
        case .entityCast(let types, let scope): return "cast(\(types),\(scope))"
        case .conditional(let clauses): return "case(\(clauses.map { shape($0.condition) + ":" + shape($0.value) }.joined(separator: ",")))"
        case .lambda, .count: return "collection@\(expression.range)"
        }
    }
}
