/// A `$search` expression: words and phrases joined by `AND` (also implicit), `OR` and `NOT`.
public struct SearchSyntax: Sendable, Equatable {
    public indirect enum Kind: Sendable, Equatable {
        case word(String)
        case phrase(String)
        case not(SearchSyntax)
        case and(SearchSyntax, SearchSyntax)
        case or(SearchSyntax, SearchSyntax)
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}
