/// A bound `$search`, evaluated offline with a simple, documented meaning: a term (a word or a
/// phrase) matches an entity when one of its string properties (complex properties' included)
/// contains it, ignoring case; `AND` (also implied), `OR` and `NOT` combine terms as written.
package indirect enum BoundSearch: Sendable, Equatable {
    /// A word or phrase, lowercased (Unicode), as it is looked for in lowercased values.
    case term(String)
    case and(BoundSearch, BoundSearch)
    case or(BoundSearch, BoundSearch)
    case not(BoundSearch)
}
