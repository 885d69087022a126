#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A store is made only where no file is, and whole: a file that is there is never silently
/// replaced, and a creation cut short leaves nothing that cannot be opened.
@Suite struct StoreCreationTests {
    private func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    @Test func anEmptyFileIsRefusedNamingItsPathAndLeftAsItWas() throws {
        let folder = TemporaryFolder()
        let path = folder.file("empty.store")
        folder.write("empty.store", [])
        #expect { try StoreFile(path: path) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .notAStore && error.message.contains(path) && error.message.contains("empty file (0 bytes)")
        }
        #expect { _ = try LocalStore.openOrCreate(path: path, metadata: { LocalWriterTests.metadata }) } throws: {
            ($0 as? ODataError)?.code == .notAStore
        }
        #expect(size(path) == 0)
    }

    @Test func anEmptyFileBecomesTheStoreWhenAccepted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("empty.store")
        folder.write("empty.store", [])
        let (store, created) = try LocalStore.openOrCreate(path: path, metadata: { LocalWriterTests.metadata },
                                                             acceptsEmptyFile: true)
        defer { store.close() }
        #expect(created)
        #expect(try store.file.formatVersion() == StoreFormat.currentVersion)
    }

    @Test func anEmptySQLiteDatabaseIsRefusedUnlessAccepted() throws {
        let folder = TemporaryFolder()
        let path = folder.file("blank.db")
        let db = try SQLiteConnection(path: path, create: true)
        _ = try db.scalarText("PRAGMA journal_mode = WAL")  // writes the header: a file with no tables
        db.close()
        #expect((size(path) ?? 0) > 0)
        #expect { try StoreFile(path: path) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .notAStore && error.message.contains("empty SQLite database")
        }
        try StoreFile(path: path, acceptsEmptyFile: true).close()
        #expect(try StoreFile(path: path).formatVersion() == StoreFormat.currentVersion)
    }

    @Test func aNewStoreAppearsWholeWithNothingLeftBesideIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("new.store")
        let store = try StoreFile(path: path)
        defer { store.close() }
        #expect(try store.formatVersion() == StoreFormat.currentVersion)
        #expect(!exists(path + ".creating"))
        #expect(!exists(path + ".creating-wal"))
    }

    @Test func whatAKilledCreationLeftDoesNotStopTheNextOne() throws {
        let folder = TemporaryFolder()
        let path = folder.file("again.store")
        // A creation killed midway leaves its half-built file beside the path, never at it.
        folder.write("again.store.creating", Array(repeating: 0x53, count: 5000))
        folder.write("again.store.creating-wal", Array(repeating: 0x57, count: 5000))
        let store = try StoreFile(path: path)
        defer { store.close() }
        #expect(try store.formatVersion() == StoreFormat.currentVersion)
        #expect(!exists(path + ".creating"))
        #expect(!exists(path + ".creating-wal"))
    }

    @Test func aStoreLeftWithoutItsModelIsFinishedByTheNextOpen() throws {
        let folder = TemporaryFolder()
        let path = folder.file("half.store")
        // The state a kill between making the file and writing the model leaves: the engine's
        // application id and format tables, no model.
        try StoreFile(path: path).close()
        let (store, created) = try LocalStore.openOrCreate(path: path, metadata: { LocalWriterTests.metadata })
        defer { store.close() }
        #expect(created)
        #expect(!store.schema.tables.isEmpty)
    }

    @Test func aFolderAtThePathIsRefused() throws {
        let folder = TemporaryFolder()
        #expect { try StoreFile(path: folder.path) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .cannotOpen && error.message.contains("it is a folder")
        }
    }
}
