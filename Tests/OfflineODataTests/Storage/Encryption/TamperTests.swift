#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A changed byte, a swapped page or a changed WAL frame makes the read that needs it fail with a
/// clear error, never return wrong data.
@Suite struct TamperTests {
    static let pageSize = 16384

    /// Whether the error is the VFS's authentication failure (or a damaged header at open).
    static func isTamperError(_ error: any Error) -> Bool {
        guard let error = error as? ODataError else { return false }
        return (error.code == .storage && error.message.contains("failed its authentication"))
            || (error.code == .notAStore && error.message.contains("header is damaged"))
            || (error.code == .notAStore && error.message.contains("neither an encrypted store nor SQLite"))
    }

    /// Opens the store and reads every page that holds something (integrity_check walks them all).
    static func readEverything(_ path: String) throws {
        let file = try StoreFile(path: path, acceptsEmptyFile: false, key: EncryptionFixture.rawKey)
        defer { file.close() }
        try file.withConnection { db throws(ODataError) in try checkIntegrity(db) }
    }

    /// `integrity_check` on `db`, its findings thrown.
    static func checkIntegrity(_ db: SQLiteConnection) throws(ODataError) {
        let result = try db.scalarText("PRAGMA integrity_check")
        // integrity_check reports a page it cannot read as a row: 8202 is SQLITE_IOERR_DATA.
        if let result, result.contains("error code=8202") {
            throw ODataError(.storage, "a page failed its authentication: \(result)")
        }
        guard result == "ok" else {
            throw ODataError(.storage, "integrity_check found something: \(result ?? "")")
        }
    }

    /// A closed store with the markers, vacuumed so that every page is in use.
    static func compactStore(in folder: TemporaryFolder) throws -> String {
        let path = folder.file("t.store")
        let store = try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey)
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("VACUUM")
            #expect(try db.scalarInt("PRAGMA freelist_count") == 0)
        }
        store.close()
        #expect(!fileExists(path + "-wal"))
        return path
    }

    @Test func everyPageOfTheDatabaseFileIsAuthenticated() throws {
        let folder = TemporaryFolder()
        let path = try Self.compactStore(in: folder)
        try Self.readEverything(path)
        let pages = EncryptionFixture.bytes(of: path).count / Self.pageSize
        #expect(pages > 5)
        let offsets = [0, 7, 30, 55, 56, 57, 4000, Self.pageSize - 97, Self.pageSize - 96, Self.pageSize - 41,
                       Self.pageSize - 40, Self.pageSize - 17, Self.pageSize - 16, Self.pageSize - 1]
        for page in 0..<pages {
            for within in offsets {
                let offset = page * Self.pageSize + within
                EncryptionFixture.flip(path, at: offset)
                #expect(throws: (any Error).self, "page \(page + 1) byte \(within)") { try Self.readEverything(path) }
                do { try Self.readEverything(path) } catch { #expect(Self.isTamperError(error), "page \(page + 1) byte \(within): \(error)") }
                EncryptionFixture.flip(path, at: offset)
            }
        }
        try Self.readEverything(path)
    }

    @Test func swappedPagesAreDetected() throws {
        let folder = TemporaryFolder()
        let path = try Self.compactStore(in: folder)
        let original = EncryptionFixture.bytes(of: path)
        let pages = original.count / Self.pageSize
        for (a, b) in [(1, 2), (2, 3), (3, pages - 1), (0, 1)] {
            var swapped = original
            let first = Array(original[(a * Self.pageSize)..<((a + 1) * Self.pageSize)])
            let second = Array(original[(b * Self.pageSize)..<((b + 1) * Self.pageSize)])
            swapped.replaceSubrange((a * Self.pageSize)..<((a + 1) * Self.pageSize), with: second)
            swapped.replaceSubrange((b * Self.pageSize)..<((b + 1) * Self.pageSize), with: first)
            unlink(path)
            folder.write("t.store", swapped)
            #expect(throws: (any Error).self, "pages \(a + 1) and \(b + 1)") { try Self.readEverything(path) }
            do { try Self.readEverything(path) } catch { #expect(Self.isTamperError(error), "\(error)") }
        }
    }

    @Test func aChangedOrMovedWALFrameFailsTheReadThatNeedsIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("w.store")
        let store = try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey)
        defer { store.close() }
        let walPath = path + "-wal"
        let wal = EncryptionFixture.bytes(of: walPath)
        let frameSize = Self.pageSize + 24
        let frames = (wal.count - 32) / frameSize
        #expect(frames > 2)
        // The last frame holds the newest copy of its page: a read of that page goes to it.
        let last = 32 + (frames - 1) * frameSize
        func readWithFreshConnection() throws {
            let db = try SQLiteConnection(path: path, access: .readWrite, cipher: store.file.cipher)
            defer { db.close() }
            try Self.checkIntegrity(db)
        }
        try readWithFreshConnection()
        for within in [24, 24 + 56, 24 + 1000, frameSize - 40, frameSize - 1] {
            EncryptionFixture.flip(walPath, at: last + within)
            #expect(throws: (any Error).self, "frame byte \(within)") { try readWithFreshConnection() }
            do { try readWithFreshConnection() } catch { #expect(Self.isTamperError(error), "\(error)") }
            EncryptionFixture.flip(walPath, at: last + within)
        }
        try readWithFreshConnection()
        // The frame's page number is authenticated: another page's body in its place fails.
        let fd = open(walPath, O_RDWR)
        defer { close(fd) }
        var lastBody = [UInt8](repeating: 0, count: Self.pageSize)
        var otherBody = [UInt8](repeating: 0, count: Self.pageSize)
        var otherPgno = UInt32(0)
        var index = frames - 2
        while index >= 0 {
            let header = Array(wal[(32 + index * frameSize)..<(32 + index * frameSize + 4)])
            let pgno = header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let lastPgno = wal[last..<(last + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if pgno != lastPgno { otherPgno = pgno; break }
            index -= 1
        }
        #expect(otherPgno != 0)
        _ = pread(fd, &lastBody, Self.pageSize, off_t(last + 24))
        _ = pread(fd, &otherBody, Self.pageSize, off_t(32 + index * frameSize + 24))
        _ = pwrite(fd, &otherBody, Self.pageSize, off_t(last + 24))
        #expect(throws: (any Error).self) { try readWithFreshConnection() }
        do { try readWithFreshConnection() } catch { #expect(Self.isTamperError(error), "\(error)") }
        _ = pwrite(fd, &lastBody, Self.pageSize, off_t(last + 24))
        try readWithFreshConnection()
    }

    @Test func theRollbackJournalIsEncryptedAndRollsBack() throws {
        let folder = TemporaryFolder()
        let path = folder.file("j.store")
        try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey).close()
        let cipher = try StoreCipher.handle(for: path, key: EncryptionFixture.rawKey)
        let db = try SQLiteConnection(path: path, access: .readWrite, cipher: cipher)
        defer { db.close() }
        // PERSIST keeps the journal's records after the commit, for the search.
        #expect(try db.scalarText("PRAGMA journal_mode = PERSIST") == "persist")
        let before = try db.scalarInt("SELECT count(*) FROM ood_request_queue")
        try db.execute("BEGIN; DELETE FROM ood_request_queue; ROLLBACK;")
        try db.execute("BEGIN; UPDATE ood_store_info SET value = value || 'x'; DELETE FROM ood_request_queue; COMMIT;")
        #expect(EncryptionFixture.bytes(of: path + "-journal").count > Self.pageSize)
        for marker in EncryptionFixture.markers {
            #expect(EncryptionFixture.filesContaining(marker, in: folder.path).isEmpty)
        }
        #expect(before == 20)
        #expect(try db.scalarInt("SELECT count(*) FROM ood_request_queue") == 0)
        #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
    }
}
