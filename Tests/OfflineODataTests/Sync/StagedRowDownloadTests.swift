import Testing
@_spi(Tool) @testable import OfflineOData

/// A first download written as rows into a staging table as its pages arrive, then swapped in
/// (``StagedRowSink``, ``StagingTable``; issue 38): readers see the set's table empty until the
/// swap, each page is kept with its point, and a row written meanwhile into the set's table stops
/// the swap.
@Suite struct StagedRowDownloadTests {
    private static let request = DefiningRequest(name: "All", url: "Agencies")

    private func input(_ text: String) -> JSONInput { Array(text.utf8).withUnsafeBytes { JSONInput($0) } }

    private func count(_ table: String, _ db: SQLiteConnection) throws(ODataError) -> Int64? {
        try db.scalarInt("SELECT count(*) FROM \(quoteIdentifier(table))")
    }

    /// Runs `body` with a new store of `IndexPlanTests`'s model (one set, `Agencies`), its staging
    /// table for ``request`` and a sink writing into it.
    private func withStaging(_ body: (SQLiteConnection, StagingTable, inout StagedRowSink) throws(ODataError) -> Void) throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("staged.store"), metadata: IndexPlanTests.metadata,
                                          definingRequests: [Self.request])
        defer { store.close() }
        let (model, schema, dialect) = (store.model, store.schema, store.dialect)
        try store.file.withConnection { db throws(ODataError) in
            guard let table = try StagingTable.qualifies(Self.request, isDelta: false, schema: schema, model: model,
                                                         dialect: dialect, db: db) else {
                Issue.record("a first full download of a set without $expand stages its rows")
                return
            }
            #expect(try StagingTable.qualifies(Self.request, isDelta: true, schema: schema, model: model, dialect: dialect,
                                               db: db) == nil)
            let point = DownloadResumePoint(definingRequest: "All", url: "Agencies", serviceRoot: "http://host/svc/",
                                            isDelta: false, fromDeltaLink: nil, nextLink: nil, pages: 0, entities: 0,
                                            deltaLink: nil, startedAt: 0)
            var sink = StagedRowSink(point: point, table: table, db: db, valueLimit: .none) { () throws(ODataError) in
                try IngestSession(definingRequest: Self.request, model: model, schema: schema, dialect: dialect, db: db,
                                  writingInto: [table.final.entitySet: table.staging])
            }
            try body(db, table, &sink)
        }
    }

    @Test func pagesAreStagedAndKeptThenSwappedInWithTheirMembershipsAndIndexes() throws {
        try withStaging { db, table, sink throws(ODataError) in
            let pages = [#"{"value":[{"ID":1,"Name":"a"},{"ID":2,"Name":"b"}],"@odata.nextLink":"Agencies?$skiptoken=2"}"#,
                         #"{"value":[{"ID":2,"Name":"b2"},{"ID":3,"Name":"c"}]}"#]
            for text in pages {
                let page = input(text)
                try sink.keep(page: page, summary: try sink.accept(page: page))
            }
            sink.close()
            #expect(sink.heldPage == nil && sink.storedPages == 2)
            #expect(try count(table.final.name, db) == 0, "readers see the set's table as it was")
            #expect(try count(table.staging.name, db) == 3, "a key repeated on a later page is one row")
            #expect(try count("ood_download_page", db) == 2)
            #expect(try count("ood_membership", db) == 0)
            #expect(try DownloadResumeTable.point(of: "All", in: db)?.pages == 2)

            #expect(try db.transaction { () throws(ODataError) in try table.swapIn(in: db) })
            #expect(try count(table.final.name, db) == 3)
            #expect(try db.scalarInt("SELECT count(*) FROM \(table.final.quotedName) WHERE Name = 'b2' AND \"_ood_id\" = 2") == 1)
            #expect(try db.scalarInt("SELECT count(*) FROM ood_membership WHERE defining_request = 'All'") == 3)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = ?1", [.text(table.staging.name)]) == 0)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                                     [.text(table.final.name + "/key")]) == 1)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'ood_staging/%'") == 0)
        }
    }

    private func hasStagingKeyIndex(_ table: StagingTable, _ db: SQLiteConnection) throws(ODataError) -> Bool {
        try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                         [.text(table.staging.name + "/key")]) == 1
    }

    @Test func rowsWhoseKeysGrowAreStagedWithoutTheKeyIndexUntilAKeyRepeats() throws {
        try withStaging { db, table, sink throws(ODataError) in
            for text in [#"{"value":[{"ID":1,"Name":"a"},{"ID":2,"Name":"b"}],"@odata.nextLink":"Agencies?$skiptoken=2"}"#,
                         #"{"value":[{"ID":5,"Name":"e"},{"ID":7,"Name":"g"}],"@odata.nextLink":"Agencies?$skiptoken=4"}"#] {
                let page = input(text)
                try sink.keep(page: page, summary: try sink.accept(page: page))
            }
            #expect(try !hasStagingKeyIndex(table, db), "growing keys cannot repeat: no index is kept up to date")
            let last = input(#"{"value":[{"ID":8,"Name":"h"},{"ID":5,"Name":"e2"},{"ID":3,"Name":"c"}]}"#)
            try sink.keep(page: last, summary: try sink.accept(page: last))
            sink.close()
            #expect(try hasStagingKeyIndex(table, db), "a key that does not grow builds the index")
            #expect(try count(table.staging.name, db) == 6, "the repeated key is one row")
            #expect(try db.scalarInt("SELECT count(*) FROM \(table.staging.quotedName) WHERE ID = 5 AND Name = 'e2'") == 1)

            #expect(try db.transaction { () throws(ODataError) in try table.swapIn(in: db) })
            #expect(try count(table.final.name, db) == 6)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                                     [.text(table.final.name + "/key")]) == 1)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'ood_staging/%'") == 0)
        }
    }

    /// Keeps a first page (keys 10 and 11), closes the sink, and opens a new one from the kept
    /// point, as a new process would; nil (recorded as an issue) when no point was kept.
    private func resumeAfterKeysTenAndEleven(_ db: SQLiteConnection, _ table: StagingTable,
                                             _ sink: inout StagedRowSink) throws(ODataError) -> StagedRowSink? {
        let first = input(#"{"value":[{"ID":10},{"ID":11}],"@odata.nextLink":"Agencies?$skiptoken=2"}"#)
        try sink.keep(page: first, summary: try sink.accept(page: first))
        sink.close()
        guard let kept = try DownloadResumeTable.point(of: "All", in: db) else {
            Issue.record("the point was not kept")
            return nil
        }
        return StagedRowSink(point: kept, table: table, db: db, valueLimit: .none, makeSession: sink.makeSession)
    }

    @Test func aResumedDownloadFindsTheLargestKeyOfTheKeptRows() throws {
        try withStaging { db, table, sink throws(ODataError) in
            guard var resumed = try resumeAfterKeysTenAndEleven(db, table, &sink) else { return }
            let second = input(#"{"value":[{"ID":11,"Name":"again"}]}"#)
            try resumed.keep(page: second, summary: try resumed.accept(page: second))
            resumed.close()
            #expect(try hasStagingKeyIndex(table, db))
            #expect(try count(table.staging.name, db) == 2, "the kept rows' largest key counts as written")
            #expect(try db.scalarInt("SELECT count(*) FROM \(table.staging.quotedName) WHERE ID = 11 AND Name = 'again'") == 1)
        }
    }

    @Test func aRemovalByKeyInAStagedPageBuildsTheKeyIndexFirst() throws {
        try withStaging { db, table, sink throws(ODataError) in
            let page = input(#"{"value":[{"ID":1},{"ID":2},{"@removed":{"reason":"deleted"},"ID":1},{"ID":3}]}"#)
            let first = input(#"{"value":[{"ID":0}],"@odata.nextLink":"Agencies?$skiptoken=1"}"#)
            try sink.keep(page: first, summary: try sink.accept(page: first))
            try sink.keep(page: page, summary: try sink.accept(page: page))
            sink.close()
            #expect(try hasStagingKeyIndex(table, db), "a removal looks its key up: the index is built first")
            #expect(try db.scalarInt("SELECT count(*) FROM \(table.staging.quotedName) WHERE ID IN (0, 2, 3)") == 3)
        }
    }

    @Test func aResumedDownloadGivesItsNewRowsIdsAfterTheKeptOnes() throws {
        try withStaging { db, table, sink throws(ODataError) in
            guard var resumed = try resumeAfterKeysTenAndEleven(db, table, &sink) else { return }
            let second = input(#"{"value":[{"ID":12}]}"#)
            try resumed.keep(page: second, summary: try resumed.accept(page: second))
            resumed.close()
            #expect(resumed.heldPage == nil)
            #expect(try db.scalarInt("SELECT \"_ood_id\" FROM \(table.staging.quotedName) WHERE ID = 12") == 3)
        }
    }

    @Test func aRowWrittenIntoTheSetsTableMeanwhileStopsTheSwapAndChangesNothing() throws {
        try withStaging { db, table, sink throws(ODataError) in
            let page = input(#"{"value":[{"ID":1}],"@odata.nextLink":"Agencies?$skiptoken=1"}"#)
            try sink.keep(page: page, summary: try sink.accept(page: page))
            sink.close()
            try db.execute("INSERT INTO \(table.final.quotedName) (ID, \"_ood_change\") VALUES (99, 'created')")
            #expect(try !db.transaction { () throws(ODataError) in try table.swapIn(in: db) })
            #expect(try count(table.final.name, db) == 1)
            #expect(try count(table.staging.name, db) == 1)
        }
    }

    @Test func aFirstPageThatIsTheLastIsHeldNotStaged() throws {
        try withStaging { db, table, sink throws(ODataError) in
            let page = input(#"{"value":[{"ID":1}]}"#)
            try sink.keep(page: page, summary: try sink.accept(page: page))
            sink.close()
            #expect(sink.heldPage === page && sink.storedPages == 0)
            #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = ?1", [.text(table.staging.name)]) == 0)
            #expect(try count("ood_download_page", db) == 0)
        }
    }
}
