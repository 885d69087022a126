import Testing
@testable import OfflineOData

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
}
