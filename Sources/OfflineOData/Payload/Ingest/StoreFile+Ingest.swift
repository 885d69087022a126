/// The public face of ingest on a store file: the tool's `store load` (through
/// ``LocalStore/load(pages:definingRequest:fullRefresh:)``) and the benchmarks. A download drives
/// ``IngestSession`` itself, page by page as they arrive.
extension StoreFile {
    /// Creates the tables and indexes of `schema` that the store does not have yet.
    package func createTables(for schema: StoreSchema) throws(ODataError) {
        try withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                for statement in schema.createStatements { try db.execute(statement) }
            }
        }
    }

    /// Loads one download of `definingRequest` (its pages, in order) in one transaction: all of it
    /// is stored, or, on any error, nothing changes. With `fullRefresh`, the pages are the whole
    /// result and the request's entities they do not contain are removed. `onPage` is called after
    /// each page with its index and summary (progress, timing).
    @discardableResult
    package func ingest(pages: [[UInt8]], definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema,
                       dialect: Dialect, fullRefresh: Bool,
                       onPage: ((Int, PageSummary) -> Void)? = nil) throws(ODataError) -> [PageSummary] {
        var remaining = pages[...]
        return try ingest(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect,
                          fullRefresh: fullRefresh, onPage: onPage) { () throws(ODataError) -> [UInt8]? in remaining.popFirst() }
    }

    /// ``ingest(pages:definingRequest:model:schema:dialect:fullRefresh:onPage:)`` with the pages
    /// asked for one at a time (`nextPage` returns nil after the last): only the page being
    /// written is in memory, so loading ten million entities from files takes no more memory
    /// than a download of them. `pageCacheKiB` bounds SQLite's page cache while it writes (see
    /// ``loadPageCacheKiB``); nil keeps the connection's.
    @discardableResult
    package func ingest(definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema, dialect: Dialect,
                       fullRefresh: Bool, pageCacheKiB: Int? = nil, onPage: ((Int, PageSummary) -> Void)? = nil,
                       nextPage: () throws(ODataError) -> [UInt8]?) throws(ODataError) -> [PageSummary] {
        try withConnection { db throws(ODataError) in
            guard let pageCacheKiB else {
                return try ingest(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect,
                                  fullRefresh: fullRefresh, on: db, onPage: onPage, nextPage: nextPage)
            }
            return try db.withPageCache(kibibytes: pageCacheKiB) { () throws(ODataError) -> [PageSummary] in
                try ingest(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect,
                           fullRefresh: fullRefresh, on: db, onPage: onPage, nextPage: nextPage)
            }
        }
    }

    /// The page cache of a load from files, in KiB. The load is one transaction: once the cache is
    /// full SQLite writes its dirty pages to the WAL before the commit, so a larger cache buys
    /// little. Measured on the tool's load of 1,000,000 entities (10,000 a page): a peak of 31 MB
    /// instead of 44 MB with the connection's 16 MB, the same wall time (median 3.45 s against
    /// 3.65 s), 0.1 s more of system time.
    static let loadPageCacheKiB = 4096

    private func ingest(definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema, dialect: Dialect,
                        fullRefresh: Bool, on db: SQLiteConnection, onPage: ((Int, PageSummary) -> Void)?,
                        nextPage: () throws(ODataError) -> [UInt8]?) throws(ODataError) -> [PageSummary] {
        try IngestSession.run(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect, db: db,
                              fullRefresh: fullRefresh) { session throws(ODataError) in
            var summaries: [PageSummary] = []
            while let page = try nextPage() {
                let summary = try session.ingest(page: page)
                summaries.append(summary)
                onPage?(summaries.count - 1, summary)
            }
            return summaries
        }
    }
}
