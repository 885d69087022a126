import Testing
@_spi(Tool) @testable import OfflineOData

/// What the fetching phase of a resumable download keeps (``StagedPageSink``) and how it commits
/// (``DownloadResumeTable/whileStaging(in:_:)``).
@Suite struct ResumableDownloadStagingTests {
    private func input(_ text: String) -> JSONInput { Array(text.utf8).withUnsafeBytes { JSONInput($0) } }

    private func freshPoint() -> DownloadResumePoint {
        DownloadResumePoint(definingRequest: "P", url: "People", serviceRoot: "http://host/svc/", isDelta: false,
                            fromDeltaLink: nil, nextLink: nil, pages: 0, entities: 0, deltaLink: nil, startedAt: 0)
    }

    /// Runs `body` on the connection of a new store file.
    private func withNewStore(_ body: (SQLiteConnection) throws(ODataError) -> Void) throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("a.store"))
        defer { store.close() }
        try store.withConnection(body)
    }

    private func keptPages(_ db: SQLiteConnection) throws(ODataError) -> Int64? {
        try db.scalarInt("SELECT (SELECT count(*) FROM ood_download_page) + (SELECT count(*) FROM ood_download_resume)")
    }

    @Test func aDownloadsOnlyPageIsHeldForTheTablesNotKept() throws {
        try withNewStore { db throws(ODataError) in
            var sink = StagedPageSink(point: freshPoint(), db: db)
            let page = input(#"{"value":[{"ID":1},{"ID":2}],"@odata.deltaLink":"People?$deltatoken=1"}"#)
            try sink.keep(page: page, summary: try sink.accept(page: page))
            #expect(sink.heldPage === page)
            #expect(sink.storedPages == 0)
            #expect(sink.point.pages == 1 && sink.point.entities == 2 && sink.point.nextLink == nil)
            #expect(sink.point.deltaLink == "People?$deltatoken=1")
            #expect(try keptPages(db) == 0)
        }
    }

    @Test func pagesOfADownloadOfSeveralAreKeptTheLastOneToo() throws {
        try withNewStore { db throws(ODataError) in
            var sink = StagedPageSink(point: freshPoint(), db: db)
            for text in [#"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=1"}"#, #"{"value":[{"ID":2}]}"#] {
                let page = input(text)
                try sink.keep(page: page, summary: try sink.accept(page: page))
            }
            #expect(sink.heldPage == nil)
            #expect(sink.storedPages == 2)
            #expect(try db.scalarInt("SELECT count(*) FROM ood_download_page WHERE defining_request = 'P'") == 2)
            #expect(try DownloadResumeTable.point(of: "P", in: db)?.pages == 2)
        }
    }

    @Test func aResumedDownloadsLastPageIsKeptNotHeld() throws {
        try withNewStore { db throws(ODataError) in
            var resumed = freshPoint()
            resumed.pages = 3
            resumed.nextLink = "People?$skiptoken=3"
            var sink = StagedPageSink(point: resumed, db: db)
            let page = input(#"{"value":[{"ID":4}]}"#)
            try sink.keep(page: page, summary: try sink.accept(page: page))
            #expect(sink.heldPage == nil)
            #expect(sink.storedPages == 1)
            #expect(try DownloadResumeTable.point(of: "P", in: db)?.pages == 4)
        }
    }

    @Test func stagingCommitsWithoutWaitingForTheDiskThenPutsTheSettingBack() throws {
        try withNewStore { db throws(ODataError) in
            #expect(try db.scalarInt("PRAGMA synchronous") == 2)
            let during = try DownloadResumeTable.whileStaging(in: db) { () throws(ODataError) in
                try db.scalarInt("PRAGMA synchronous")
            }
            #expect(during == 1)
            #expect(try db.scalarInt("PRAGMA synchronous") == 2)
            // A failed fetch puts it back too: the store's other commits stay FULL.
            #expect(throws: ODataError.self) {
                try DownloadResumeTable.whileStaging(in: db) { () throws(ODataError) in throw ODataError(.network, "cut") }
            }
            #expect(try db.scalarInt("PRAGMA synchronous") == 2)
        }
    }
}
