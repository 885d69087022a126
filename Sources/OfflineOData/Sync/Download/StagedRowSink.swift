/// The sink of a resumable download into a table that held nothing (``StagingTable``): each page's
/// entities are written as rows into the staging table as the page arrives, while the next page
/// travels, and committed with the point after the page in one transaction, so a download killed
/// or cut part-way loses at most the page in flight and each entity is read and written once.
///
/// A page's transaction opens in ``accept(page:)`` (the rows) and commits in
/// ``keep(page:summary:)`` (the point), once the page's links passed the downloader's checks; a
/// download that fails between the two calls ``abandonPage()``, which rolls the page back.
/// A download whose first page is its last has nothing to resume: that page is held
/// (``heldPage``) and written into the set's table in the transaction that makes it visible, as
/// ``StagedPageSink`` does.
struct StagedRowSink: PageSink {
    /// How far the download got: updated with each page (committed with it, unless held).
    private(set) var point: DownloadResumePoint
    /// Pages committed by this sink (not by the interrupted download it resumes).
    private(set) var storedPages = 0
    /// The download's only page, when its first page had no next link: not staged, written whole.
    private(set) var heldPage: JSONInput?
    /// Whether the store could not take a page (a value that does not fit its column): its kept
    /// pages are dropped then, as kept pages the store cannot take are.
    private(set) var refusedPage = false
    let table: StagingTable
    let makeSession: () throws(ODataError) -> IngestSession
    let db: SQLiteConnection
    /// A page with a larger value is refused whole, before it is written (``HTTPOptions/maximumValueSize``).
    let valueLimit: PageValueLimit
    private var session: IngestSession?
    /// Whether a page's transaction is open (between ``accept(page:)`` and ``keep(page:summary:)``).
    private var pageOpen = false

    init(point: DownloadResumePoint, table: StagingTable, db: SQLiteConnection, valueLimit: PageValueLimit,
         makeSession: @escaping () throws(ODataError) -> IngestSession) {
        self.point = point
        self.table = table
        self.db = db
        self.valueLimit = valueLimit
        self.makeSession = makeSession
    }

    mutating func accept(page: JSONInput) throws(ODataError) -> PageSummary {
        // The envelope is read first where it decides something: on the first page (held if it
        // is the last) and on a page larger than the value limit (a value in it may be larger,
        // refused before anything is written). A smaller page cannot hold a larger value: its
        // one reading is the ingest's.
        var envelope: PageSummary?
        if point.pages == 0 || page.buffer.count > valueLimit.maximumSize {
            let summary = try PageEnvelope.summary(of: page, valueLimit: valueLimit)
            // A first page that is the last: held, written with the transaction that shows it.
            if point.pages == 0 && summary.nextLink == nil { return summary }
            envelope = summary
        }
        let session: IngestSession
        var isNew = false
        if let existing = self.session {
            session = existing
        } else {
            session = try makeSession()
            self.session = session
            isNew = true
        }
        try session.begin()
        pageOpen = true
        do {
            if point.pages == 0 {
                try table.create(in: db, keyColumn: session.plans[table.final.entitySet]?.integerKeyColumn)
            }
            // New rows take ids after those a resumed download's pages took, and go in without
            // the key index while their keys grow (``IncreasingKeys``).
            if isNew {
                for plan in session.plans.values {
                    try plan.continueFreshIDs()
                    try table.startIncreasingKeys(plan, in: db)
                }
            }
            let ingested = try session.ingest(page: JSONReader(input: page))
            return envelope ?? ingested
        } catch {
            abandonPage()
            refusedPage = !error.isDiskFull
            throw error
        }
    }

    mutating func keep(page: JSONInput, summary: PageSummary) throws(ODataError) {
        var next = point
        next.pages += 1
        next.entities += summary.entities
        next.nextLink = summary.nextLink
        if let link = summary.deltaLink { next.deltaLink = link }
        if pageOpen, let session {
            do {
                try DownloadResumeTable.savePoint(next, in: db)
                try DownloadResumeTable.markStagedPage(next, in: db)
                try session.commit()
            } catch {
                abandonPage()
                throw error
            }
            pageOpen = false
            storedPages += 1
        } else {
            heldPage = page
        }
        point = next
    }

    /// Rolls back the page whose transaction is open, if one is (the download failed or stopped
    /// between reading it and keeping it); the pages committed before stay.
    mutating func abandonPage() {
        guard pageOpen else { return }
        session?.rollback()
        // A session whose page failed refuses more pages: the next page, if any, gets a new one.
        session = nil
        pageOpen = false
    }

    /// Lets the session go (its prepared statements name the staging table, which the swap renames).
    mutating func close() {
        abandonPage()
        session = nil
    }
}
