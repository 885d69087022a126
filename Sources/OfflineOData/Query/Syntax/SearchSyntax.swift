/// A `$search` expression: words and phrases joined by `AND` (also implicit), `OR` and `NOT`.
package struct SearchSyntax: Sendable, Equatable {
    package indirect enum Kind: Sendable, Equatable {
        case word(String)
        case phrase(String)
        case not(SearchSyntax)
        case and(SearchSyntax, SearchSyntax)
        case or(SearchSyntax, SearchSyntax)
    }

    package var kind: Kind
    package var range: SourceRange

    package init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}
