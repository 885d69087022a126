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
    /// than a download of them.
    @discardableResult
    package func ingest(definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema, dialect: Dialect,
                       fullRefresh: Bool, onPage: ((Int, PageSummary) -> Void)? = nil,
                       nextPage: () throws(ODataError) -> [UInt8]?) throws(ODataError) -> [PageSummary] {
        try withConnection { db throws(ODataError) in
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
}
