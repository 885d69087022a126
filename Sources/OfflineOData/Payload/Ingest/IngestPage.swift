/// Loads one page of a defining request's result in its own transaction: the entry point of
/// `offline-odata store load STORE --defining NAME FILE...` (one call per file).
///
/// The page's entities are upserted and become members of `definingRequest`; deleted entries of a
/// delta page are removed. Nothing else is removed, because one page is not the whole result: to
/// replace a request's data with a complete result, use ``ingestPages(_:definingRequest:model:schema:dialect:fullRefresh:on:)``.
/// On any error the transaction is rolled back and the store is as before.
@discardableResult
func ingestPage(_ bytes: [UInt8], definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema,
                dialect: Dialect, on db: SQLiteConnection) throws(ODataError) -> PageSummary {
    try ingestPages([bytes], definingRequest: definingRequest, model: model, schema: schema, dialect: dialect,
                    fullRefresh: false, on: db).last ?? PageSummary()
}

/// Loads all pages of one download in one transaction. With `fullRefresh`, the pages are the whole
/// result: the request's entities they do not contain are removed (see ``IngestSession/finish(fullRefresh:)``).
@discardableResult
func ingestPages(_ pages: [[UInt8]], definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema,
                 dialect: Dialect, fullRefresh: Bool, on db: SQLiteConnection) throws(ODataError) -> [PageSummary] {
    try IngestSession.run(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect, db: db,
                          fullRefresh: fullRefresh) { session throws(ODataError) in
        var summaries: [PageSummary] = []
        for page in pages { summaries.append(try session.ingest(page: page)) }
        return summaries
    }
}
