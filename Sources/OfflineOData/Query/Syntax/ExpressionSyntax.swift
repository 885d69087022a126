/// A `$filter`/`$orderby` expression as written, with no types: the binder gives it meaning.
package struct ExpressionSyntax: Sendable, Equatable {
    /// Only the recursive cases are boxed: literals and paths, the most common leaves, cost no
    /// allocation of their own.
    package enum Kind: Sendable, Equatable {
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

    package var kind: Kind
    package var range: SourceRange

    package init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}

/// One `condition:value` clause of `case(...)`.
package struct ConditionalClauseSyntax: Sendable, Equatable {
    package var condition: ExpressionSyntax
    package var value: ExpressionSyntax

    package init(condition: ExpressionSyntax, value: ExpressionSyntax) {
        self.condition = condition
        self.value = value
    }
}

/// One `"name": value` member of a JSON object in an expression.
package struct JSONMemberSyntax: Sendable, Equatable {
    package var name: String
    package var value: ExpressionSyntax
    package var range: SourceRange

    package init(name: String, value: ExpressionSyntax, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}

/// The binary operators, from loosest to tightest binding (URL Conventions §5.1.1.x).
package enum BinaryOperator: String, Sendable, Equatable, CaseIterable {
    case or, and
    case eq, ne
    case gt, ge, lt, le
    case add, sub
    case mul, div, divby, mod
    case has, `in`

    /// Higher binds tighter. `has` and `in` are primary-level operators in the spec's table.
    package var precedence: Int {
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

package enum UnaryOperator: String, Sendable, Equatable {
    case not
    /// Arithmetic `-x`. A minus written right before a number is part of the literal instead.
    case negate
}

/// The canonical functions; geo.* functions are rejected as unsupported by the parser.
package enum CanonicalFunction: String, Sendable, Equatable, CaseIterable {
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
    package var arity: ClosedRange<Int> {
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
package struct MemberPathSyntax: Sendable, Equatable {
    package enum Root: Sendable, Equatable {
        /// The first segment names a member of the current instance (or a lambda variable).
        case implicit
        case it
        case root
        case this
        /// `@name/...`: a parameter alias or an annotation, resolved by the binder.
        case alias(String)
    }

    package var root: Root
    package var segments: [PathSegmentSyntax]

    package init(root: Root, segments: [PathSegmentSyntax]) {
        self.root = root
        self.segments = segments
    }
}

/// `any(x: predicate)` or `all(x: predicate)`; `any()` has neither variable nor predicate.
package struct LambdaSyntax: Sendable, Equatable {
    package enum Quantifier: String, Sendable, Equatable { case any, all }
    package var quantifier: Quantifier
    package var variable: String?
    package var predicate: ExpressionSyntax?

    package init(quantifier: Quantifier, variable: String?, predicate: ExpressionSyntax?) {
        self.quantifier = quantifier
        self.variable = variable
        self.predicate = predicate
    }
}
