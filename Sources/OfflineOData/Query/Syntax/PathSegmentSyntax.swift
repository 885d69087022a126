/// One `/`-separated segment of a resource path or of a member path in an expression.
///
/// Without the model, `Categories(1)`, `ProductsByColor(color='red')` and `Orders(ID=1)` look the
/// same: a name followed by parenthesized ``ArgumentListSyntax`` groups. The binder decides whether a
/// name is an entity set, a property, a type cast or a function, and whether a group is a key
/// predicate or a parameter list. Groups are kept in order: `F(x=1)(2)` has two.
package struct PathSegmentSyntax: Sendable, Equatable {
    /// Names, the common case, are stored inline; only the large or recursive payloads are boxed.
    package enum Kind: Sendable, Equatable {
        /// An identifier or a qualified name (`Model.Customer`, `Model.*`, `*`).
        case name(String)
        /// A key written as its own segment (4.01 key-as-segment), `Customers/1`.
        indirect case keyValue(LiteralSyntax)
        /// `@Core.Messages` as a path segment.
        case annotation(String)
        case count
        case value
        /// V4 `$ref`.
        case ref
        /// V2 `$links`.
        case links
        case metadata
        case batch
        case entity
        case all
        case each
        case query
        case crossjoin([String])
        /// 4.01 `/$filter(expr)` path segment.
        indirect case filter(ExpressionSyntax)
        /// `any(...)`/`all(...)` in an expression path.
        indirect case lambda(LambdaSyntax)
    }

    package var kind: Kind
    /// Parenthesized groups written right after the segment: key predicates or function arguments.
    package var argumentLists: [ArgumentListSyntax]
    /// Nested options of `$count(...)` in an expression (`Products/$count($filter=Price gt 5) gt 2`).
    package var countOptions: QueryOptionsSyntax? {
        get { countOptionsBox?.value }
        set { countOptionsBox = newValue.map(OptionsBox.init) }
    }
    package var range: SourceRange
    /// Boxed, because the options are large and rare while segments are copied often.
    private var countOptionsBox: OptionsBox?

    package init(_ kind: Kind, argumentLists: [ArgumentListSyntax] = [], countOptions: QueryOptionsSyntax? = nil, range: SourceRange) {
        self.kind = kind
        self.argumentLists = argumentLists
        self.range = range
        countOptionsBox = countOptions.map(OptionsBox.init)
    }

    package static func == (lhs: PathSegmentSyntax, rhs: PathSegmentSyntax) -> Bool {
        lhs.kind == rhs.kind && lhs.argumentLists == rhs.argumentLists && lhs.range == rhs.range
            && lhs.countOptions == rhs.countOptions
    }
}

/// An immutable heap box for rarely present nested options.
final class OptionsBox: Sendable {
    let value: QueryOptionsSyntax
    init(_ value: QueryOptionsSyntax) { self.value = value }
}

/// `(...)` after a path segment: `()`, `(1)`, `('a')`, `(ID=1,Size=5)`, `(color=@c)`.
package struct ArgumentListSyntax: Sendable, Equatable {
    package var arguments: [ArgumentSyntax]
    package var range: SourceRange

    package init(arguments: [ArgumentSyntax], range: SourceRange) {
        self.arguments = arguments
        self.range = range
    }
}

/// One argument: positional (`(1)`) when `name` is nil, named (`ID=1`) otherwise.
package struct ArgumentSyntax: Sendable, Equatable {
    package var name: String?
    package var value: ExpressionSyntax
    package var range: SourceRange

    package init(name: String?, value: ExpressionSyntax, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}
