/// A `$filter`/`$orderby` expression as written, with no types: the binder gives it meaning.
public struct ExpressionSyntax: Sendable, Equatable {
    /// Only the recursive cases are boxed: literals and paths, the most common leaves, cost no
    /// allocation of their own.
    public enum Kind: Sendable, Equatable {
        case literal(LiteralSyntax)
        /// `@p` on its own; its value is a query option of the same name (or an annotation, which
        /// only the binder can tell).
        case parameterAlias(String)
        /// A member path from the current instance, `$it`, `$root`, `$this`, a lambda variable or an alias.
        case path(MemberPathSyntax)
        indirect case binary(BinaryOperator, ExpressionSyntax, ExpressionSyntax)
        indirect case unary(UnaryOperator, ExpressionSyntax)
        /// A built-in function of URL Conventions §5.1.1.
        case function(CanonicalFunction, [ExpressionSyntax])
        /// A type name as argument of `cast` or `isof` (`Edm.Int32`, `Model.Customer`, `Customer`).
        case typeName(String)
        /// The right operand of `in`: `('a','b')`.
        case list([ExpressionSyntax])
        /// A 4.01 JSON array, `["a", 1, Name]`; its items are expressions (JSON strings are string literals).
        case array([ExpressionSyntax])
        /// A 4.01 JSON object, `{"Street":"Main", "No": 1 add 2}`.
        case object([JSONMemberSyntax])
        /// 4.01 `case(condition:value, ...)`: the first clause whose condition holds gives the value.
        case conditional([ConditionalClauseSyntax])
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}

/// One `condition:value` clause of `case(...)`.
public struct ConditionalClauseSyntax: Sendable, Equatable {
    public var condition: ExpressionSyntax
    public var value: ExpressionSyntax

    public init(condition: ExpressionSyntax, value: ExpressionSyntax) {
        self.condition = condition
        self.value = value
    }
}

/// One `"name": value` member of a JSON object in an expression.
public struct JSONMemberSyntax: Sendable, Equatable {
    public var name: String
    public var value: ExpressionSyntax
    public var range: SourceRange

    public init(name: String, value: ExpressionSyntax, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}

/// The binary operators, from loosest to tightest binding (URL Conventions §5.1.1.x).
public enum BinaryOperator: String, Sendable, Equatable, CaseIterable {
    case or, and
    case eq, ne
    case gt, ge, lt, le
    case add, sub
    case mul, div, divby, mod
    case has, `in`

    /// Higher binds tighter. `has` and `in` are primary-level operators in the spec's table.
    public var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .eq, .ne: 3
        case .gt, .ge, .lt, .le: 4
        case .add, .sub: 5
        case .mul, .div, .divby, .mod: 6
        case .has, .in: 8
        }
    }
}

public enum UnaryOperator: String, Sendable, Equatable {
    case not
    /// Arithmetic `-x`. A minus written right before a number is part of the literal instead.
    case negate
}

/// The canonical functions; geo.* functions are rejected as unsupported by the parser.
public enum CanonicalFunction: String, Sendable, Equatable, CaseIterable {
    // string and collection
    case contains, startswith, endswith, length, indexof, substring, tolower, toupper, trim, concat
    case matchesPattern
    case substringof // V2 only: substringof(needle, haystack)
    case replace // V2 only: replace(string, find, replacement), every occurrence
    // date and time
    case year, month, day, hour, minute, second, fractionalseconds, totalseconds, date, time
    case totaloffsetminutes, now, mindatetime, maxdatetime
    // arithmetic
    case round, floor, ceiling
    // type
    case cast, isof
    // collection (4.01)
    case hassubset, hassubsequence

    /// Argument counts the spec allows. Checked syntactically so `length()` fails where it is written.
    public var arity: ClosedRange<Int> {
        switch self {
        case .now, .mindatetime, .maxdatetime: 0...0
        case .length, .tolower, .toupper, .trim, .year, .month, .day, .hour, .minute, .second,
             .fractionalseconds, .totalseconds, .date, .time, .totaloffsetminutes, .round, .floor, .ceiling:
            1...1
        case .contains, .startswith, .endswith, .indexof, .concat, .matchesPattern, .substringof,
             .hassubset, .hassubsequence:
            2...2
        case .substring: 2...3
        case .replace: 3...3
        case .cast, .isof: 1...2
        }
    }
}

/// A path through members: `Address/City`, `$it/Orders/$count`, `d/any(x:x/Price gt 1)`.
public struct MemberPathSyntax: Sendable, Equatable {
    public enum Root: Sendable, Equatable {
        /// The first segment names a member of the current instance (or a lambda variable).
        case implicit
        case it
        case root
        case this
        /// `@name/...`: a parameter alias or an annotation, resolved by the binder.
        case alias(String)
    }

    public var root: Root
    public var segments: [PathSegmentSyntax]

    public init(root: Root, segments: [PathSegmentSyntax]) {
        self.root = root
        self.segments = segments
    }
}

/// `any(x: predicate)` or `all(x: predicate)`; `any()` has neither variable nor predicate.
public struct LambdaSyntax: Sendable, Equatable {
    public enum Quantifier: String, Sendable, Equatable { case any, all }
    public var quantifier: Quantifier
    public var variable: String?
    public var predicate: ExpressionSyntax?

    public init(quantifier: Quantifier, variable: String?, predicate: ExpressionSyntax?) {
        self.quantifier = quantifier
        self.variable = variable
        self.predicate = predicate
    }
}
