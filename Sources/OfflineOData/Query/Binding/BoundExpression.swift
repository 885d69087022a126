/// A `$filter` or `$orderby` expression after binding: names resolved, types known, literals in
/// their stored form. Booleans follow OData's two-valued logic; the translator makes SQL agree.
package struct BoundExpression: Sendable {
    /// Only the recursive cases (and the large `count` payload) are boxed: literals and members,
    /// the most common leaves, cost no allocation of their own.
    package enum Kind: Sendable {
        /// A literal, already converted to the stored form of ``BoundExpression/type``.
        case literal(BoundValue)
        case null
        /// The value of a property, reached from a range variable through to-one navigations.
        case member(BoundMember)
        indirect case comparison(ComparisonOperator, BoundExpression, BoundExpression)
        indirect case and(BoundExpression, BoundExpression)
        indirect case or(BoundExpression, BoundExpression)
        indirect case not(BoundExpression)
        indirect case arithmetic(ArithmeticOperator, BoundExpression, BoundExpression)
        indirect case negate(BoundExpression)
        /// A canonical function; the arguments are bound and type-checked.
        case function(CanonicalFunction, [BoundExpression])
        /// `x in (a, b)`: equal to one of the items (null equals null, as with `eq`).
        indirect case `in`(BoundExpression, [BoundExpression])
        /// `Flags has Ns.Color'Red'`.
        indirect case has(BoundExpression, BoundValue)
        /// `Nav/any(v: ...)`, `Nav/all(v: ...)`, also over collection properties. The predicate's
        /// range variable is scope number ``BoundLambda/scope``.
        indirect case lambda(BoundLambda)
        /// `Nav/$count` or `Collection/$count`.
        indirect case count(BoundCollectionSource)
        /// SAP offline extensions: `sap.islocal()`, `sap.hasPendingChanges()` of a range variable.
        case localState(LocalStateTest, scope: Int)
        /// `isof(Model.Derived)` of a range variable: the entity's concrete type is one of `types`.
        case isOf(types: [String], scope: Int)
        /// `cast(value, Edm.Type)`: the value in the stored form of this expression's (primitive)
        /// type, null where the cast is not possible (OData 4.01).
        indirect case primitiveCast(BoundExpression)
        /// `cast(Model.Derived)` of a range variable: the entity when its concrete type is one of
        /// `types`, else null.
        case entityCast(types: [String], scope: Int)
        /// 4.01 `case(condition:value, ...)`: the value of the first clause whose condition is
        /// true, null when none is; every value is of this expression's type.
        case conditional([BoundClause])
    }

    package var kind: Kind
    package var type: BoundType
    /// Where the expression was written in the original URL.
    package var range: SourceRange

    package init(_ kind: Kind, type: BoundType, range: SourceRange) {
        self.kind = kind
        self.type = type
        self.range = range
    }
}

/// One `condition:value` clause of a bound `case(...)`.
package struct BoundClause: Sendable {
    package var condition: BoundExpression
    package var value: BoundExpression
}

package enum ComparisonOperator: String, Sendable { case eq, ne, gt, ge, lt, le }

package enum ArithmeticOperator: String, Sendable { case add, sub, mul, div, divby, mod }

package enum LocalStateTest: Sendable {
    /// Created offline and not yet uploaded.
    case isLocal
    /// Any pending local change (created, updated or deleted).
    case hasPendingChanges
    /// The service refused an uploaded change of the entity; the request waits in the error archive.
    case inErrorState
}

extension LocalStateTest {
    /// The `$filter` function's name, as SAP's offline store spells it.
    var functionName: String {
        switch self {
        case .isLocal: return "sap.islocal"
        case .hasPendingChanges: return "sap.hasPendingChanges"
        case .inErrorState: return "sap.inerrorstate"
        }
    }

    /// The test a function name (lowercased) asks for; nil for any other name.
    init?(functionName lowered: String) {
        switch lowered {
        case "sap.islocal": self = .isLocal
        case "sap.haspendingchanges": self = .hasPendingChanges
        case "sap.inerrorstate": self = .inErrorState
        default: return nil
        }
    }
}

/// The type of a bound expression.
package enum BoundType: Sendable, Equatable, CustomStringConvertible {
    case primitive(PrimitiveType)
    case enumeration(String)
    /// The `null` literal, which fits any type.
    case null
    case entity(String)
    /// A collection property (stored as JSON); `element` is the item's type where primitive.
    case collection(element: PrimitiveType?)
    /// A complex value or an untyped one: not comparable.
    case other(String)

    package var primitive: PrimitiveType? {
        if case .primitive(let type) = self { return type }
        return nil
    }

    package var description: String {
        switch self {
        case .primitive(let type): type.rawValue
        case .enumeration(let name): name
        case .null: "null"
        case .entity(let name): name
        case .collection(let element): "Collection(\(element?.rawValue ?? "?"))"
        case .other(let name): name
        }
    }
}

/// A property reached from a range variable: `$it` is scope 0, each lambda variable the next.
package struct BoundMember: Sendable {
    package var scope: Int
    /// To-one navigations followed before the property (`Agency/City`).
    package var navigations: [BoundNavigation]
    /// The property path in the final entity (`["Address", "City"]`); empty for a lambda variable
    /// over a primitive collection, which denotes the item itself.
    package var propertyPath: [String]
}

/// What a lambda or `$count` ranges over.
package enum BoundCollectionSource: Sendable {
    /// Related entities: from a range variable through to-one navigations, then the to-many one.
    case navigation(scope: Int, path: [BoundNavigation], collection: BoundNavigation)
    /// The items of a collection property (stored as JSON).
    case items(BoundMember, element: PrimitiveType?)
}

package struct BoundLambda: Sendable {
    package var quantifier: LambdaSyntax.Quantifier
    package var source: BoundCollectionSource
    /// The scope number of the lambda variable inside the predicate.
    package var scope: Int
    /// nil for `any()`.
    package var predicate: BoundExpression?
}
