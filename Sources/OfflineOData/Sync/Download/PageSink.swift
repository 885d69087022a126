/// What the download loop hands each page's bytes to (ready for a ``JSONReader``) (what a page said comes back as a
/// ``PageSummary``): in the store, an ingest session writing into the tables inside the defining
/// request's transaction; in tests, a recorder.
///
/// ``accept(page:)`` runs on the download's thread while the fetch thread brings the next page,
/// whose link a quick scan of this page's bytes guessed (``NextLinkScanner``); the summary the
/// sink returns still decides which page comes next.
protocol PageSink {
    /// Takes one page and says what it found in it.
    mutating func accept(page: JSONInput) throws(ODataError) -> PageSummary
    /// Called once the page's links passed the download's checks: a sink that keeps pages for a
    /// resumable download stores it now, with the point after it.
    mutating func keep(page: JSONInput, summary: PageSummary) throws(ODataError)
}

extension PageSink {
    mutating func keep(page: JSONInput, summary: PageSummary) throws(ODataError) {}
}

/// The store's sink: each page is read and written into the defining request's transaction
/// entity by entity (``IngestSession/ingest(page:)``), so a page costs its bytes and no parsed
/// copy of them besides.
extension IngestSession: PageSink {
    func accept(page: JSONInput) throws(ODataError) -> PageSummary { try ingest(page: JSONReader(input: page)) }
}
