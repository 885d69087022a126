/// What the download loop hands each page to (what a page said comes back as a ``PageSummary``): in the store, an ingest session writing into the
/// tables inside the defining request's transaction; in tests, a recorder.
protocol PageSink {
    /// Takes one page of an OData JSON response and says what it found in it.
    mutating func accept(page: [UInt8]) throws(ODataError) -> PageSummary
}

/// The store's sink: each downloaded page is ingested into the defining request's transaction.
extension IngestSession: PageSink {
    func accept(page: [UInt8]) throws(ODataError) -> PageSummary { try ingest(page: page) }
}
