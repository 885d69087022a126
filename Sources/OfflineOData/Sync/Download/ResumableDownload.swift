#if canImport(Glibc)
import Glibc
#endif

/// Downloads one defining request so that a download killed or cut by a network failure goes on,
/// next time, from the last page it stored instead of the first.
///
/// Two phases. *Fetching*: each page is committed as it arrives, as the service sent it, with the
/// next link to fetch (``StagedPageSink``); readers see none of it. *Applying*: when the last page
/// is stored, all of them are written into the tables, the full refresh's removals done, the
/// delta link recorded and the kept pages deleted, in one transaction: readers see the defining
/// request's previous content until then, and its new content whole after. A download whose first
/// page is its last has nothing to resume: that page is held, not stored (``StagedPageSink/heldPage``).
///
/// A full download without `$expand` into a table that holds nothing (a store's first download of
/// a set, the common large one) writes each page's entities as rows into a staging table as the
/// page arrives instead (``StagingTable``, ``StagedRowSink``), committed with the point after it,
/// and the last transaction swaps that table in: each entity is read and written once, while the
/// next page travels, with the same guarantees (readers see the empty table until the swap; a
/// killed download keeps its committed pages' rows and resumes after them).
///
/// A kept resume point is used only when it still describes this download: the same defining
/// request URL, service root, full or delta (and the same delta link), a next link on the
/// service's origin, and no older than ``lifetime``. Otherwise its pages are dropped and the
/// download starts at the first page. When the service refuses the kept next link (a 4xx such as
/// an expired `$skiptoken`; not 401, 403, 407, 408 or 429, which the next attempt may get past),
/// the kept pages are dropped and the download starts over at once, within the same call.
struct ResumableDownload {
    let downloader: Downloader
    let model: MetadataModel
    let schema: StoreSchema
    let dialect: Dialect
    let db: SQLiteConnection

    /// How long a resume point is trusted, from its first page: a day. Pages fetched further
    /// apart would stitch together states of the service too far apart, and services let paging
    /// tokens expire within hours or days.
    static let lifetime: Int64 = 24 * 3600

    /// Downloads `request` (its changes, when `isDelta`) and stores it; see the type's description.
    /// `record` runs in the transaction that makes the download visible (the store's statistics
    /// and sync log); what it answers is the outcome's ``DownloadOutcome/recordingProblem``.
    func run(_ request: DefiningRequest, isDelta: Bool, cancellation: HTTPCancellation?,
             progress: (DownloadProgress) -> Bool,
             record: (DownloadOutcome) -> String? = { _ in nil }) throws(ODataError) -> DownloadOutcome {
        var kept = try usableResumePoint(of: request, isDelta: isDelta)
        if let table = try stagingTable(for: request, isDelta: isDelta, kept: &kept) {
            if let outcome = try runStaged(request, into: table, kept: kept, isDelta: isDelta, cancellation: cancellation,
                                           progress: progress, record: record) {
                return outcome
            }
            // The set's table took rows while the download staged its own: it starts over, keeping pages.
            kept = nil
        }
        return try runKeepingPages(request, kept: kept, isDelta: isDelta, cancellation: cancellation, progress: progress,
                                   record: record)
    }

    /// Downloads `request` keeping each page as the service sent it, then writes them all into the
    /// tables (the type's description).
    private func runKeepingPages(_ request: DefiningRequest, kept: DownloadResumePoint?, isDelta: Bool,
                                 cancellation: HTTPCancellation?, progress: (DownloadProgress) -> Bool,
                                 record: (DownloadOutcome) -> String?) throws(ODataError) -> DownloadOutcome {
        var kept = kept
        let valueLimit = PageValueLimit(maximumSize: downloader.transport.currentOptions.maximumValueSize)
        var fetched: DownloadOutcome?
        var heldPage: JSONInput?
        if kept?.nextLink != nil || kept == nil {
            var sink = StagedPageSink(point: kept ?? freshPoint(of: request, isDelta: isDelta), db: db, valueLimit: valueLimit)
            try DownloadResumeTable.whileStaging(in: db) { () throws(ODataError) in
                do throws(ODataError) {
                    fetched = try downloader.download(request, useDelta: isDelta, resuming: kept, into: &sink,
                                                      cancellation: cancellation, progress: progress)
                } catch where kept != nil && sink.storedPages == 0 && Self.refusesResumption(error) {
                    // The service no longer knows the kept next link: start over, cleanly.
                    try db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
                    kept = nil
                    sink = StagedPageSink(point: freshPoint(of: request, isDelta: isDelta), db: db, valueLimit: valueLimit)
                    fetched = try downloader.download(request, useDelta: isDelta, into: &sink, cancellation: cancellation,
                                                      progress: progress)
                }
            }
            kept = sink.point
            heldPage = sink.heldPage
        }
        guard let stored = kept else {
            throw ODataError(.internalError, "the download of '\(request.name)' stored no page")
        }
        var outcome: DownloadOutcome
        do {
            outcome = try apply(stored, of: request, isDelta: isDelta, fetched: fetched, record: record) { page throws(ODataError) in
                if let heldPage { return heldPage }
                let body = try DownloadResumeTable.pageBody(of: request.name, page: page, in: db)
                try DownloadResumeTable.dropPage(of: request.name, page: page, in: db)
                return body
            }
        } catch where !error.isDiskFull {
            // Pages the store cannot take would fail again each time: the next download refetches.
            try? db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
            throw error
        }
        // Fetched nothing: an interrupted download had stored every page and was killed writing them.
        outcome.resumedAtPage = fetched.map(\.resumedAtPage) ?? stored.pages + 1
        outcome.fetchedPages = fetched?.fetchedPages ?? 0
        return outcome
    }

    /// The staging table this download writes its rows into (``StagingTable``), or nil when it
    /// keeps pages: a kept download goes on as it started; a new one stages when it qualifies.
    /// A kept point whose staging table no longer fits the set's table (its model changed) is
    /// dropped with it (`kept` becomes nil).
    private func stagingTable(for request: DefiningRequest, isDelta: Bool,
                              kept: inout DownloadResumePoint?) throws(ODataError) -> StagingTable? {
        let exists = try db.scalarInt("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)",
                                      [.text(DownloadResumeTable.stagingTableName(of: request.name))]) == 1
        if kept != nil {
            guard exists else { return nil }
            if let table = try StagingTable.kept(for: request, schema: schema, model: model, dialect: dialect, db: db) {
                return table
            }
            try db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
            kept = nil
        } else if exists {
            try db.transaction { () throws(ODataError) in try DownloadResumeTable.dropStagingTable(of: request.name, in: db) }
        }
        return try StagingTable.qualifies(request, isDelta: isDelta, schema: schema, model: model, dialect: dialect, db: db)
    }

    /// Downloads `request` into `table`'s staging table, then swaps it in with the download's
    /// record in one transaction; nil, with the staged rows dropped, when the set's table took
    /// rows meanwhile (``StagingTable/swapIn(in:)``).
    private func runStaged(_ request: DefiningRequest, into table: StagingTable, kept: DownloadResumePoint?, isDelta: Bool,
                           cancellation: HTTPCancellation?, progress: (DownloadProgress) -> Bool,
                           record: (DownloadOutcome) -> String?) throws(ODataError) -> DownloadOutcome? {
        try StagingTable.withDownloadCache(in: db) { () throws(ODataError) -> DownloadOutcome? in
            try runStagedWithCache(request, into: table, kept: kept, isDelta: isDelta, cancellation: cancellation,
                                   progress: progress, record: record)
        }
    }

    /// ``runStaged`` with the staged download's page cache set.
    private func runStagedWithCache(_ request: DefiningRequest, into table: StagingTable, kept: DownloadResumePoint?, isDelta: Bool,
                                   cancellation: HTTPCancellation?, progress: (DownloadProgress) -> Bool,
                                   record: (DownloadOutcome) -> String?) throws(ODataError) -> DownloadOutcome? {
        var kept = kept
        let valueLimit = PageValueLimit(maximumSize: downloader.transport.currentOptions.maximumValueSize)
        var fetched: DownloadOutcome?
        var heldPage: JSONInput?
        if kept?.nextLink != nil || kept == nil {
            let (model, schema, dialect, db) = (model, schema, dialect, db)
            let makeSession = { () throws(ODataError) -> IngestSession in
                try IngestSession(definingRequest: request, model: model, schema: schema, dialect: dialect, db: db,
                                  writingInto: [table.final.entitySet: table.staging])
            }
            var sink = StagedRowSink(point: kept ?? freshPoint(of: request, isDelta: isDelta), table: table, db: db,
                                     valueLimit: valueLimit, makeSession: makeSession)
            do {
                try DownloadResumeTable.whileStaging(in: db) { () throws(ODataError) in
                    do throws(ODataError) {
                        fetched = try downloader.download(request, useDelta: isDelta, resuming: kept, into: &sink,
                                                          cancellation: cancellation, progress: progress)
                    } catch where kept != nil && sink.storedPages == 0 && Self.refusesResumption(error) {
                        // The service no longer knows the kept next link: start over, cleanly.
                        sink.close()
                        try db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
                        kept = nil
                        sink = StagedRowSink(point: freshPoint(of: request, isDelta: isDelta), table: table, db: db,
                                             valueLimit: valueLimit, makeSession: makeSession)
                        fetched = try downloader.download(request, useDelta: isDelta, into: &sink, cancellation: cancellation,
                                                          progress: progress)
                    }
                }
            } catch {
                sink.close()
                // Pages the store cannot take would fail again each time: the next download refetches.
                if sink.refusedPage {
                    try? db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
                }
                throw error
            }
            sink.close()
            kept = sink.point
            heldPage = sink.heldPage
        }
        guard let stored = kept else {
            throw ODataError(.internalError, "the download of '\(request.name)' stored no page")
        }
        var outcome: DownloadOutcome
        if let heldPage {
            outcome = try applyHeld(heldPage, stored, of: request, isDelta: isDelta, fetched: fetched, record: record)
        } else {
            if let deltaLink = stored.deltaLink {
                try ServiceURL.checkSameOrigin(ServiceURL.resolve(deltaLink, against: downloader.serviceRoot),
                                               as: downloader.serviceRoot, what: "the delta link of '\(request.name)'")
            }
            let swapped = try db.transaction { () throws(ODataError) -> DownloadOutcome? in
                guard try table.swapIn(in: db) else { return nil }
                try DefiningRequestTable.recordDownload(of: request.name, at: utcTimestamp(), deltaLink: stored.deltaLink, in: db)
                try DownloadResumeTable.discard(request.name, in: db)
                var outcome = DownloadOutcome(definingRequest: request.name, pages: stored.pages, entities: stored.entities,
                                              isDelta: isDelta, deltaLink: stored.deltaLink, bytes: fetched?.bytes ?? 0,
                                              expectedEntities: fetched?.expectedEntities)
                outcome.recordingProblem = record(outcome)
                return outcome
            }
            guard let swapped else {
                try db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
                return nil
            }
            outcome = swapped
        }
        outcome.resumedAtPage = fetched.map(\.resumedAtPage) ?? stored.pages + 1
        outcome.fetchedPages = fetched?.fetchedPages ?? 0
        return outcome
    }

    /// Writes a one-page download's page into the tables, as ``runKeepingPages`` writes a held page.
    private func applyHeld(_ page: JSONInput, _ point: DownloadResumePoint, of request: DefiningRequest, isDelta: Bool,
                           fetched: DownloadOutcome?, record: (DownloadOutcome) -> String?) throws(ODataError) -> DownloadOutcome {
        do {
            return try apply(point, of: request, isDelta: isDelta, fetched: fetched, record: record) { _ throws(ODataError) in page }
        } catch where !error.isDiskFull {
            try? db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
            throw error
        }
    }

    /// The kept resume point of `request` when it can be used for this download; an unusable one
    /// is dropped with its pages.
    func usableResumePoint(of request: DefiningRequest, isDelta: Bool) throws(ODataError) -> DownloadResumePoint? {
        guard let point = try DownloadResumeTable.point(of: request.name, in: db) else { return nil }
        let root = downloader.serviceRoot
        let age = Int64(time(nil)) - point.startedAt
        let linksOnOrigin = [point.nextLink, point.deltaLink].allSatisfy { link in
            link.map { (try? ServiceURL.checkSameOrigin(ServiceURL.resolve($0, against: root), as: root, what: "")) != nil } ?? true
        }
        let usable = point.url == request.url && point.serviceRoot == root && point.isDelta == isDelta
            && point.fromDeltaLink == (isDelta ? request.deltaLink : nil) && linksOnOrigin
            && point.pages > 0 && age >= 0 && age <= Self.lifetime
        if usable { return point }
        try db.transaction { () throws(ODataError) in try DownloadResumeTable.discard(request.name, in: db) }
        return nil
    }

    /// A service's answer that says the kept next link will not work again.
    static func refusesResumption(_ error: ODataError) -> Bool {
        guard let status = error.httpStatus, (400..<500).contains(status) else { return false }
        return ![401, 403, 407, 408, 429].contains(status)
    }

    private func freshPoint(of request: DefiningRequest, isDelta: Bool) -> DownloadResumePoint {
        DownloadResumePoint(definingRequest: request.name, url: request.url, serviceRoot: downloader.serviceRoot,
                            isDelta: isDelta, fromDeltaLink: isDelta ? request.deltaLink : nil, nextLink: nil,
                            pages: 0, entities: 0, deltaLink: nil, startedAt: Int64(time(nil)))
    }

    /// Writes the pages (`body(n)` is page n, from 1) into the tables, one page in memory at a
    /// time, in one transaction that also records the download and drops the kept pages.
    private func apply(_ point: DownloadResumePoint, of request: DefiningRequest, isDelta: Bool, fetched: DownloadOutcome?,
                       record: (DownloadOutcome) -> String?,
                       body: (Int) throws(ODataError) -> JSONInput) throws(ODataError) -> DownloadOutcome {
        if let deltaLink = point.deltaLink {
            try ServiceURL.checkSameOrigin(ServiceURL.resolve(deltaLink, against: downloader.serviceRoot),
                                           as: downloader.serviceRoot, what: "the delta link of '\(request.name)'")
        }
        return try IngestSession.run(definingRequest: request, model: model, schema: schema, dialect: dialect, db: db,
                                     fullRefresh: !isDelta) { session throws(ODataError) -> DownloadOutcome in
            var entities = 0
            for number in stride(from: 1, through: point.pages, by: 1) {
                let page = try body(number)
                do throws(ODataError) {
                    entities += try session.accept(page: page).entities
                } catch {
                    var error = error
                    error.message = "page \(number) of '\(request.name)': \(error.message)"
                    throw error
                }
            }
            try DefiningRequestTable.recordDownload(of: request.name, at: utcTimestamp(), deltaLink: point.deltaLink, in: db)
            try DownloadResumeTable.discard(request.name, in: db)
            var outcome = DownloadOutcome(definingRequest: request.name, pages: point.pages, entities: entities, isDelta: isDelta,
                                          deltaLink: point.deltaLink, bytes: fetched?.bytes ?? 0,
                                          expectedEntities: fetched?.expectedEntities)
            outcome.recordingProblem = record(outcome)
            return outcome
        }
    }
}
