/// The sink of a resumable download: each page is kept in the store as the service sent it, with
/// the point to resume from, in one transaction per page (``DownloadResumeTable/storePage(_:body:in:)``),
/// so a download killed or cut part-way loses at most the page in flight. Readers see none of it:
/// the pages reach the tables when the last one is stored (``ResumableDownload``).
///
/// A download whose first page is also its last has nothing to resume: that page is held in
/// memory instead (``heldPage``) and written into the tables straight away, in the one transaction
/// that makes the download visible. A kill before that commit leaves the previous content, as a
/// kill of the page in flight does.
struct StagedPageSink: PageSink {
    /// How far the download got: updated with each page (stored with it, unless held).
    private(set) var point: DownloadResumePoint
    /// Pages stored by this sink (not by the interrupted download it resumes).
    private(set) var storedPages = 0
    /// The download's only page, when its first page had no next link: not stored, written whole.
    private(set) var heldPage: JSONInput?
    let db: SQLiteConnection
    /// A page with a larger value is refused whole, before it is kept (``HTTPOptions/maximumValueSize``).
    let valueLimit: PageValueLimit

    init(point: DownloadResumePoint, db: SQLiteConnection, valueLimit: PageValueLimit = .none) {
        self.point = point
        self.db = db
        self.valueLimit = valueLimit
    }

    /// Reads what the page says about the download, refusing a value above the limit; stores
    /// nothing yet (``keep(page:summary:)``).
    func accept(page: JSONInput) throws(ODataError) -> PageSummary { try PageEnvelope.summary(of: page, valueLimit: valueLimit) }

    mutating func keep(page: JSONInput, summary: PageSummary) throws(ODataError) {
        var next = point
        next.pages += 1
        next.entities += summary.entities
        next.nextLink = summary.nextLink
        if let link = summary.deltaLink { next.deltaLink = link }
        if point.pages == 0 && summary.nextLink == nil {
            heldPage = page
        } else {
            try DownloadResumeTable.storePage(next, body: page.buffer, in: db)
            storedPages += 1
        }
        point = next
    }
}
