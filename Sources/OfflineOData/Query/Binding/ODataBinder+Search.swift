/// `$search` bound for the offline store (``BoundSearch``).
extension ODataBinder {
    /// The most words and phrases one `$search` may hold offline: each is looked for in every
    /// string column, so the statement grows with their product.
    static let maxSearchTerms = 64

    func bindSearch(_ syntax: SearchSyntax, at range: SourceRange) throws(ODataError) -> BoundSearch {
        // Counted without recursing first: `a b c ...` is a chain as long as the input.
        var pending = [syntax]
        var terms = 0
        while let node = pending.popLast() {
            switch node.kind {
            case .word, .phrase:
                terms += 1
                if terms > Self.maxSearchTerms {
                    throw unsupported("$search holds more than \(Self.maxSearchTerms) words and phrases, more than the offline store searches in one request", at: range)
                }
            case .not(let inner): pending.append(inner)
            case .and(let a, let b), .or(let a, let b): pending.append(a); pending.append(b)
            }
        }
        return Self.bound(syntax)
    }

    /// The bound tree; its depth is at most ``maxSearchTerms`` levels, checked above.
    private static func bound(_ syntax: SearchSyntax) -> BoundSearch {
        switch syntax.kind {
        case .word(let text), .phrase(let text): .term(text.lowercased())
        case .not(let inner): .not(bound(inner))
        case .and(let a, let b): .and(bound(a), bound(b))
        case .or(let a, let b): .or(bound(a), bound(b))
        }
    }
}
