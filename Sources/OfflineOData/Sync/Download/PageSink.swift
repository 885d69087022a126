/// What the download loop hands each page to (what a page said comes back as a ``PageSummary``):
/// in the store, an ingest session writing into the tables inside the defining request's
/// transaction; in tests, a recorder.
///
/// A page goes through the sink in two steps: ``pageReader`` turns its bytes into a ``Page`` on
/// the download's fetch thread, then ``accept(page:)`` takes it on the download's thread. The
/// first step of the next page runs while the second step of this one does, so the reader must
/// touch nothing that `accept` changes.
protocol PageSink {
    /// A page as the reader leaves it for ``accept(page:)``; the bytes themselves by default.
    associatedtype Page = [UInt8]
    /// Reads one page's bytes (one page at a time, on the fetch thread).
    var pageReader: @Sendable ([UInt8]) throws(ODataError) -> Page { get }
    /// Takes one page and says what it found in it.
    mutating func accept(page: Page) throws(ODataError) -> PageSummary
    /// Takes back an accepted page on the fetch thread, where the reader may reuse its buffers.
    var pageRecycler: @Sendable (inout Page) -> Void { get }
    /// The next link of a read page, on the fetch thread: the download asks for that page while
    /// this one is accepted (``accept(page:)``'s summary still decides which page comes next).
    var pageNextLink: @Sendable (Page) -> String? { get }
}

extension PageSink {
    /// Nothing to reuse: the page is freed.
    var pageRecycler: @Sendable (inout Page) -> Void { { _ in } }
}

extension PageSink where Page == [UInt8] {
    /// The bytes as they are: the sink reads them in ``accept(page:)``.
    var pageReader: @Sendable ([UInt8]) throws(ODataError) -> [UInt8] { { bytes throws(ODataError) in bytes } }

    /// Unread bytes: a quick scan finds the link (``NextLinkScanner``).
    var pageNextLink: @Sendable ([UInt8]) -> String? { { bytes in NextLinkScanner.nextLink(in: bytes) } }
}

/// The store's sink: each downloaded page is read into entities on the fetch thread
/// (``IngestSession/read(page:)``, which touches nothing the writing changes) and written into the
/// defining request's transaction on the download's thread; written pages go back to the fetch
/// thread, whose reader reuses their buffers (``IngestSession/recycle(_:)``).
extension IngestSession: PageSink {
    var pageReader: @Sendable ([UInt8]) throws(ODataError) -> ReadPage {
        let reading = ReadingSession(session: self)
        return { bytes throws(ODataError) in try reading.session.read(page: bytes) }
    }

    func accept(page: ReadPage) throws(ODataError) -> PageSummary { try write(page) }

    /// The link the page's reading found: no scan needed.
    var pageNextLink: @Sendable (ReadPage) -> String? { { page in page.summary.nextLink } }

    var pageRecycler: @Sendable (inout ReadPage) -> Void {
        let reading = ReadingSession(session: self)
        return { page in reading.session.recycle(&page) }
    }
}

/// The session as the fetch thread may use it: for ``IngestSession/read(page:)`` and
/// ``IngestSession/recycle(_:)`` only.
private struct ReadingSession: @unchecked Sendable {
    let session: IngestSession
}
