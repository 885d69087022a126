/// What one page of a download said besides its entities: where the next page is, where the next
/// delta download starts, and how many entities the whole result has.
package struct PageSummary: Sendable, Equatable {
    /// Entities written, expanded ones included.
    package var entities: Int = 0
    /// Entities a delta page removed (deleted entries), whether or not the store held them.
    package var removed: Int = 0
    /// `@odata.nextLink` (V4) or `__next` (V2): the next page of the same result.
    package var nextLink: String?
    /// `@odata.deltaLink` (V4) or `__delta` (V2). odatapy puts it on any page, not only the last,
    /// so it is read wherever it appears.
    package var deltaLink: String?
    /// `@odata.count` (V4) or `__count` (V2, a string), when the request asked for it.
    package var count: Int?

    package init(entities: Int = 0, removed: Int = 0, nextLink: String? = nil, deltaLink: String? = nil, count: Int? = nil) {
        self.entities = entities
        self.removed = removed
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.count = count
    }
}
