/// What the download loop hands each page to: in the store, an ingest session writing into the
/// tables inside the defining request's transaction; in tests, a recorder.
protocol PageSink {
    /// Takes one page of an OData JSON response and says what it found in it.
    mutating func accept(page: [UInt8]) throws(ODataError) -> PageSummary
}

/// What one page said about the paging and the delta state.
struct PageSummary: Sendable, Equatable {
    /// Entities in the page, expanded ones included.
    var entities: Int
    /// Where the next page is (`@odata.nextLink`, V2 `__next`), as the service wrote it.
    var nextLink: String?
    /// Where the next delta download starts (`@odata.deltaLink`, V2 `__delta`), on any page.
    var deltaLink: String?
    /// The total the service announced (`@odata.count`, `__count`), if asked for.
    var count: Int?

    init(entities: Int, nextLink: String? = nil, deltaLink: String? = nil, count: Int? = nil) {
        self.entities = entities
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.count = count
    }
}
