/// The public face of ingest on a store file: the tool's `store load` (through
/// ``OfflineStore/load(pages:definingRequest:fullRefresh:)``) and the benchmarks. A download drives
/// ``IngestSession`` itself, page by page as they arrive.
extension StoreFile {
    /// Creates the tables and indexes of `schema` that the store does not have yet.
    public func createTables(for schema: StoreSchema) throws(ODataError) {
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
    public func ingest(pages: [[UInt8]], definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema,
                       dialect: Dialect, fullRefresh: Bool,
                       onPage: ((Int, PageSummary) -> Void)? = nil) throws(ODataError) -> [PageSummary] {
        try withConnection { db throws(ODataError) in
            try IngestSession.run(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect, db: db,
                                  fullRefresh: fullRefresh) { session throws(ODataError) in
                var summaries: [PageSummary] = []
                for (index, page) in pages.enumerated() {
                    let summary = try session.ingest(page: page)
                    summaries.append(summary)
                    onPage?(index, summary)
                }
                return summaries
            }
        }
    }
}
