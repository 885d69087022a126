import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct StoreFileTests {
    @Test func createsANewStoreInWALModeWithAFormatVersion() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("a.store"))
        #expect(try store.formatVersion() == StoreFormat.currentVersion)
        #expect(try store.journalMode() == "wal")
        store.close()
    }

    @Test func reopensAnExistingStore() throws {
        let folder = TemporaryFolder()
        let path = folder.file("a.store")
        try StoreFile(path: path).close()
        let again = try StoreFile(path: path)
        #expect(try again.formatVersion() == StoreFormat.currentVersion)
        again.close()
    }

    @Test func refusesAPathThatCannotBeOpened() {
        let folder = TemporaryFolder()
        #expect { try StoreFile(path: folder.file("missing-folder/a.store")) } throws: {
            ($0 as? ODataError)?.code == .cannotOpen
        }
    }

    @Test func refusesAFileThatIsNotSQLite() {
        let folder = TemporaryFolder()
        folder.write("text.store", Array(repeating: UInt8(ascii: "x"), count: 4096))
        #expect { try StoreFile(path: folder.file("text.store")) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .notAStore && error.message.contains("not an SQLite database")
        }
    }

    @Test func refusesAnSQLiteDatabaseOfAnotherApplication() throws {
        let folder = TemporaryFolder()
        let path = folder.file("other.db")
        let db = try SQLiteConnection(path: path, create: true)
        try db.execute("CREATE TABLE t (x)")
        db.close()
        #expect { try StoreFile(path: path) } throws: {
            ($0 as? ODataError)?.code == .notAStore
        }
    }

    @Test func refusesAStoreOfANewerFormat() throws {
        let folder = TemporaryFolder()
        let path = folder.file("future.store")
        try StoreFile(path: path).close()
        let db = try SQLiteConnection(path: path, create: false)
        try db.prepare("UPDATE ood_store_info SET value = ?1 WHERE key = 'format_version'").run([.text("99")])
        db.close()
        #expect { try StoreFile(path: path) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .notAStore && error.message.contains("newer")
        }
    }

    @Test func refusesAnEmptyPath() {
        #expect { try StoreFile(path: "") } throws: { ($0 as? ODataError)?.code == .misuse }
    }

    @Test func aClosedStoreReportsMisuse() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("a.store"))
        store.close()
        store.close()
        #expect { try store.formatVersion() } throws: { ($0 as? ODataError)?.code == .misuse }
    }

    @Test func aStoreWithLinksPassesSQLitesIntegrityCheck() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("links.store"))
        let result = try store.withConnection { db throws(ODataError) -> String? in
            try db.prepare("INSERT INTO ood_link VALUES ('A', 1, 'Nav', 'B', 2)").run()
            try db.prepare("INSERT INTO ood_membership VALUES ('A', 1, 'D')").run()
            return try db.scalarText("PRAGMA integrity_check")
        }
        #expect(result == "ok")
        store.close()
    }

    /// A store of format 4 (memberships in a table keyed by entity, with a second index by
    /// request) is migrated on open, keeps its memberships, and a download then removes and keeps
    /// entities by them as before.
    @Test func aFormat4StoreIsMigratedAndDownloadsStillDecideByItsMemberships() throws {
        let metadata = """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
              <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="T">
                <EntityType Name="Agency"><Key><PropertyRef Name="id"/></Key>
                  <Property Name="id" Type="Edm.Int32" Nullable="false"/><Property Name="name" Type="Edm.String"/></EntityType>
                <EntityContainer Name="C"><EntitySet Name="Agencies" EntityType="T.Agency"/></EntityContainer>
              </Schema>
            </edmx:DataServices></edmx:Edmx>
            """
        let model = try MetadataReader.read(Array(metadata.utf8))
        let schema = try StoreSchema(model: model)
        let folder = TemporaryFolder()
        let path = folder.file("format4.store")
        let old = try SQLiteConnection(path: path, create: true)
        try old.execute("PRAGMA journal_mode = WAL")
        for migration in StoreFormat.migrations[0..<4] { try old.execute(migration) }
        try old.execute("PRAGMA application_id = \(StoreFormat.applicationID)")
        try old.prepare("INSERT INTO ood_store_info (key, value) VALUES ('format_version', ?1)").run([.text("4")])
        for statement in schema.createStatements { try old.execute(statement) }
        try old.execute(#"INSERT INTO "es/Agencies" ("_ood_id", id, name) VALUES (1, 1, 'One'), (2, 2, 'Two'), (3, 3, 'Three')"#)
        try old.execute("""
            INSERT INTO ood_membership (entity_set, entity_id, defining_request)
            VALUES ('Agencies', 1, 'US'), ('Agencies', 2, 'US'), ('Agencies', 2, 'Other'), ('Agencies', 3, 'US')
            """)
        old.close()

        let store = try StoreFile(path: path)
        #expect(try store.formatVersion() == StoreFormat.currentVersion)
        let memberships = { (request: String) throws -> Int64? in
            try store.withConnection { db throws(ODataError) in
                try db.scalarInt("SELECT count(*) FROM ood_membership WHERE defining_request = ?1", [.text(request)])
            }
        }
        let agencies = { () throws -> Int64? in
            try store.withConnection { db throws(ODataError) in try db.scalarInt(#"SELECT count(*) FROM "es/Agencies""#) }
        }
        #expect(try memberships("US") == 3)
        #expect(try memberships("Other") == 1)
        // US now returns 1 and 4: 3 goes, 2 stays because Other holds it.
        let page = #"{"value":[{"id":1,"name":"One"},{"id":4,"name":"Four"}]}"#
        try store.ingest(pages: [Array(page.utf8)], definingRequest: DefiningRequest(name: "US", url: "Agencies"), model: model,
                         schema: schema, dialect: .v4, fullRefresh: true)
        #expect(try memberships("US") == 2)
        #expect(try agencies() == 3)
        // Other returns nothing: 2 is held by no request any more and goes.
        try store.ingest(pages: [Array(#"{"value":[]}"#.utf8)], definingRequest: DefiningRequest(name: "Other", url: "Agencies"),
                         model: model, schema: schema, dialect: .v4, fullRefresh: true)
        #expect(try memberships("Other") == 0)
        #expect(try agencies() == 2)
        let integrity = try store.withConnection { db throws(ODataError) in try db.scalarText("PRAGMA integrity_check") }
        #expect(integrity == "ok")
        store.close()
    }
}
