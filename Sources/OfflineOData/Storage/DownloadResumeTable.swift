internal import CSQLite

/// Where an interrupted download of one defining request goes on: what it downloads (the
/// request's URL, the service, full or delta and from which delta link) and how far it got.
struct DownloadResumePoint: Sendable, Equatable {
    var definingRequest: String
    var url: String
    var serviceRoot: String
    var isDelta: Bool
    /// The delta link the delta download started from (nil for a full download).
    var fromDeltaLink: String?
    /// The page to fetch next, as the service gave it; nil once the last page is stored.
    var nextLink: String?
    /// The pages stored so far.
    var pages: Int
    /// The entities those pages held (their top-level entries), for progress.
    var entities: Int
    /// The newest delta link the stored pages offered.
    var deltaLink: String?
    /// When the first page was stored (seconds since 1970, UTC).
    var startedAt: Int64
}

/// The tables `ood_download_resume` and `ood_download_page`: the pages of downloads in progress,
/// kept as the service sent them, and the point each one resumes from.
///
/// A page and its resume point are written in one transaction (``storePage(_:body:in:)``), so
/// after a kill the stored pages and the next link always agree. Nothing here is visible to
/// readers: the pages reach the entity tables only when the last one is stored, in one transaction
/// that also deletes them (``discard(_:in:)``).
enum DownloadResumeTable {
    static func point(of definingRequest: String, in db: SQLiteConnection) throws(ODataError) -> DownloadResumePoint? {
        let statement = try db.prepare("""
            SELECT url, service_root, is_delta, from_delta_link, next_link, pages, entities, delta_link, started_at
            FROM ood_download_resume WHERE defining_request = ?1
            """)
        try statement.bind([.text(definingRequest)])
        guard try statement.step() else { return nil }
        return DownloadResumePoint(
            definingRequest: definingRequest, url: statement.text(at: 0) ?? "", serviceRoot: statement.text(at: 1) ?? "",
            isDelta: statement.int(at: 2) != 0, fromDeltaLink: statement.text(at: 3), nextLink: statement.text(at: 4),
            pages: Int(statement.int(at: 5)), entities: Int(statement.int(at: 6)), deltaLink: statement.text(at: 7),
            startedAt: statement.int(at: 8))
    }

    /// The downloads in progress that keep pages for resuming, by defining request: what `status`
    /// shows of an interrupted download (its kept pages are not in the tables yet).
    static func kept(in db: SQLiteConnection) throws(ODataError) -> [KeptDownload] {
        let statement = try db.prepare("SELECT defining_request, pages, entities FROM ood_download_resume ORDER BY defining_request")
        var kept: [KeptDownload] = []
        while try statement.step() {
            kept.append(KeptDownload(definingRequest: statement.text(at: 0) ?? "", pages: Int(statement.int(at: 1)),
                                     entities: Int(statement.int(at: 2))))
        }
        return kept
    }

    /// Runs `body` (a download's fetching, each page stored in its own commit) with the
    /// connection's commits not waiting for the disk (`synchronous = NORMAL`) and not copying the
    /// WAL into the database file (`wal_autocheckpoint = 0`), then puts back the settings it had
    /// (the store's `FULL`, SQLite's 1000 pages).
    ///
    /// In WAL mode a commit is durable across a killed process whatever the setting (the frames
    /// are in the operating system's hands); what `NORMAL` gives up is only the last commits on
    /// a power loss, and the file stays consistent. A kept page lost that way is fetched again
    /// (page and resume point are one commit, so they never disagree), while waiting for the disk
    /// at every page cost about as much as storing it. The transaction that writes the pages into
    /// the tables commits with the setting put back, so it is durable, and so are the frames of
    /// the pages before it. The kept pages stay in the WAL until then: that transaction frees
    /// each as it reads it and the tables reuse its space (``dropPage(of:page:in:)``), so the
    /// checkpoint after it copies the tables' pages, not the kept ones.
    static func whileStaging<T>(in db: SQLiteConnection, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        let synchronous = try db.scalarInt("PRAGMA synchronous") ?? 2
        let checkpointPages = try db.scalarInt("PRAGMA wal_autocheckpoint") ?? 1000
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
        let result: T
        do {
            result = try body()
        } catch {
            try? restore(synchronous: synchronous, checkpointPages: checkpointPages, in: db)
            throw error
        }
        try restore(synchronous: synchronous, checkpointPages: checkpointPages, in: db)
        return result
    }

    /// Neither pragma takes a parameter: the level is one of SQLite's four, written from that
    /// list, and the page count an integer formatted here, not text from elsewhere.
    private static func restore(synchronous: Int64, checkpointPages: Int64, in db: SQLiteConnection) throws(ODataError) {
        let levels = ["OFF", "NORMAL", "FULL", "EXTRA"]
        let level = levels.indices.contains(Int(synchronous)) ? levels[Int(synchronous)] : "FULL"
        try db.execute("PRAGMA synchronous = \(level); PRAGMA wal_autocheckpoint = \(max(checkpointPages, 0))")
    }

    /// Stores page `point.pages` (counted from 1) and the point after it, in one transaction.
    /// The page's bytes are written from where they are into the stored blob (no copy).
    static func storePage(_ point: DownloadResumePoint, body: UnsafeBufferPointer<UInt8>, in db: SQLiteConnection) throws(ODataError) {
        try db.transaction { () throws(ODataError) in
            try savePoint(point, in: db)
            // A blob of the page's length, then the bytes written into it in place: an INSERT of
            // the bytes themselves would copy the page once more into SQLite's record.
            try db.prepare("INSERT OR REPLACE INTO ood_download_page (defining_request, page, body) VALUES (?1, ?2, zeroblob(?3))")
                .run([.text(point.definingRequest), .integer(Int64(point.pages)), .integer(Int64(body.count))])
            try writeBlob(body, row: db.lastInsertRowID, of: point.definingRequest, page: point.pages, in: db)
        }
    }

    /// Records `point` as the place `point.definingRequest`'s download resumes from, in the
    /// caller's transaction (with the page it follows: a kept page, or a staged page's rows).
    static func savePoint(_ point: DownloadResumePoint, in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("""
            INSERT OR REPLACE INTO ood_download_resume (defining_request, url, service_root, is_delta, from_delta_link,
                next_link, pages, entities, delta_link, started_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """) { statement throws(ODataError) in
            try statement.run([
                .text(point.definingRequest), .text(point.url), .text(point.serviceRoot), .integer(point.isDelta ? 1 : 0),
                point.fromDeltaLink.map(SQLValue.text) ?? .null, point.nextLink.map(SQLValue.text) ?? .null,
                .integer(Int64(point.pages)), .integer(Int64(point.entities)),
                point.deltaLink.map(SQLValue.text) ?? .null, .integer(point.startedAt),
            ])
        }
    }

    /// Records page `point.pages` of a download that writes its pages as rows into its staging
    /// table, in the caller's transaction: a kept page with no body (its entities are the staging
    /// table's rows), so the kept pages of every download are counted, and dropped, alike.
    static func markStagedPage(_ point: DownloadResumePoint, in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("INSERT OR REPLACE INTO ood_download_page (defining_request, page, body) VALUES (?1, ?2, x'')") {
            statement throws(ODataError) in
            try statement.run([.text(point.definingRequest), .integer(Int64(point.pages))])
        }
    }

    /// The table a download of `definingRequest` that writes its pages as rows keeps them in
    /// until its last page (``StagingTable``): one per defining request, so a kept download is
    /// found, and dropped, by its request's name alone.
    static func stagingTableName(of definingRequest: String) -> String { "ood_staging/" + definingRequest }

    private static func writeBlob(_ body: UnsafeBufferPointer<UInt8>, row: Int64, of definingRequest: String, page: Int,
                                  in db: SQLiteConnection) throws(ODataError) {
        guard let handle = db.handle else { throw ODataError(.misuse, "the store is closed") }
        guard let base = body.baseAddress, body.count > 0 else { return }
        guard body.count <= Int(Int32.max) else {
            throw ODataError(.storage, "page \(page) of '\(definingRequest)' is \(body.count) bytes: more than a kept page may hold")
        }
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(handle, "main", "ood_download_page", "body", row, 1, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else { throw db.error(opened, "cannot keep page \(page) of '\(definingRequest)'") }
        let written = sqlite3_blob_write(blob, base, Int32(body.count), 0)
        guard written == SQLITE_OK else { throw db.error(written, "cannot keep page \(page) of '\(definingRequest)'") }
    }

    /// The body of stored page `page` (from 1), read straight into a reader's input: the page is
    /// in memory once (SQLite's incremental blob reading makes no copy of its own).
    static func pageBody(of definingRequest: String, page: Int, in db: SQLiteConnection) throws(ODataError) -> JSONInput {
        let rowID = try db.scalarInt("SELECT id FROM ood_download_page WHERE defining_request = ?1 AND page = ?2",
                                     [.text(definingRequest), .integer(Int64(page))])
        guard let rowID, let handle = db.handle else {
            throw ODataError(.storage, "page \(page) of the download of '\(definingRequest)' is missing from the store")
        }
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(handle, "main", "ood_download_page", "body", rowID, 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else {
            throw db.error(opened, "cannot read page \(page) of the download of '\(definingRequest)'")
        }
        let count = Int(sqlite3_blob_bytes(blob))
        var rc = SQLITE_OK
        let input = JSONInput(count: count) { target in
            guard count > 0 else { return }
            rc = sqlite3_blob_read(blob, target, Int32(count), 0)
        }
        guard rc == SQLITE_OK else { throw db.error(rc, "cannot read page \(page) of the download of '\(definingRequest)'") }
        return input
    }

    /// Frees kept page `page` once it is read, inside the transaction that writes the pages into
    /// the tables: the tables' next pages take its space (a rollback keeps it).
    static func dropPage(of definingRequest: String, page: Int, in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("DELETE FROM ood_download_page WHERE defining_request = ?1 AND page = ?2") {
            statement throws(ODataError) in try statement.run([.text(definingRequest), .integer(Int64(page))])
        }
    }

    /// Forgets the download in progress of `definingRequest`: its pages (kept, or staged as rows)
    /// and its resume point.
    static func discard(_ definingRequest: String, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("DELETE FROM ood_download_page WHERE defining_request = ?1").run([.text(definingRequest)])
        try db.prepare("DELETE FROM ood_download_resume WHERE defining_request = ?1").run([.text(definingRequest)])
        try dropStagingTable(of: definingRequest, in: db)
    }

    /// Drops the staging table of `definingRequest`'s download, if there is one (a `DROP` of a
    /// table that is not there changes nothing, not even the schema's version).
    static func dropStagingTable(of definingRequest: String, in db: SQLiteConnection) throws(ODataError) {
        try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(stagingTableName(of: definingRequest)))")
    }

    /// Forgets the downloads in progress of defining requests the store no longer has, or whose
    /// URL changed (they download something else now).
    static func discardStale(in db: SQLiteConnection) throws(ODataError) {
        try db.execute("""
            DELETE FROM ood_download_page WHERE defining_request NOT IN (
                SELECT r.defining_request FROM ood_download_resume r JOIN ood_defining_request d
                ON d.name = r.defining_request AND d.url = r.url);
            DELETE FROM ood_download_resume WHERE defining_request NOT IN (
                SELECT r.defining_request FROM ood_download_resume r JOIN ood_defining_request d
                ON d.name = r.defining_request AND d.url = r.url);
            """)
        // Staging tables whose download is no longer kept.
        let orphans = try db.prepare("""
            SELECT name FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 12) = 'ood_staging/'
            AND substr(name, 13) NOT IN (SELECT defining_request FROM ood_download_resume)
            """)
        try orphans.bind([])
        var names: [String] = []
        while try orphans.step() { if let name = orphans.text(at: 0) { names.append(name) } }
        for name in names { try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(name))") }
    }
}
