#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// `check()`: SQLite's integrity check and the engine's own invariants; and the quick check of a
/// store its last user left open (a crash).
@Suite struct StoreCheckTests {
    private func storeWithAChange(in folder: TemporaryFolder) throws -> LocalStore {
        let store = try LocalStore.create(path: folder.file("c.store"), metadata: LocalWriterTests.metadata,
                                            serviceRoot: "http://127.0.0.1:9/")
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","name":"A"}"#.utf8))
        return store
    }

    /// Overwrites `path` with junk from its page `first` (1-based, 16 KB pages), `count` pages
    /// (nil: to the end): its B-trees break.
    private func overwritePages(of path: String, from first: Int, count: Int? = nil) {
        let offset = (first - 1) * 16384
        let fd = open(path, O_WRONLY)
        let junk = [UInt8](repeating: 0x5A, count: count.map { $0 * 16384 } ?? max((readFile(path)?.count ?? 0) - offset, 16384))
        _ = junk.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        close(fd)
    }

    @Test func aStoreWithQueuedChangesIsSound() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        #expect(try store.check() == [])
        #expect(try store.check(quick: true) == [])
    }

    @Test func aStoreWithMembershipsPassesTheQuickCheck() throws {
        // SQLite 3.40's quick_check reports NULLs in ood_membership (WITHOUT ROWID) that are not there.
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("m.store"), metadata: LocalWriterTests.metadata,
                                            definingRequests: [DefiningRequest(name: "All", url: "TravelagencyCollection")])
        defer { store.close() }
        let page = #"{"value":[{"agencynum":"1","name":"A"},{"agencynum":"2","name":"B"}]}"#
        #expect(try store.load(pages: [Array(page.utf8)], definingRequest: "All") == 2)
        #expect(try store.check(quick: true) == [])
        #expect(try store.check() == [])
        try store.file.withConnection { db throws(ODataError) in try db.execute("DELETE FROM \"es/TravelagencyCollection\" WHERE agencynum = '2'") }
        #expect(try store.check(quick: true).map(\.check) == ["membership"])
    }

    @Test func anEntityWhoseQueuedRequestIsGoneIsFound() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in try db.execute("DELETE FROM ood_request_queue") }
        let findings = try store.check()
        #expect(findings.count == 1)
        #expect(findings.first?.check == "queue")
        #expect(findings.first?.message.contains("has local changes but no queued or archived request") == true)
    }

    @Test func aQueuedRequestMembershipAndLinkToMissingEntitiesAreFound() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("""
                INSERT INTO ood_request_queue (method, url, entity_set, entity_id, created_at)
                    VALUES ('PATCH', 'TravelagencyCollection(''9'')', 'TravelagencyCollection', 999, 'now');
                INSERT INTO ood_defining_request (name, url, position) VALUES ('All', 'TravelagencyCollection', 0);
                INSERT INTO ood_membership (entity_set, entity_id, defining_request) VALUES ('TravelagencyCollection', 998, 'All');
                INSERT INTO ood_link VALUES ('TravelagencyCollection', 997, 'Nav', 'NoSuchSet', 1);
                """)
        }
        let findings = try store.check()
        let messages = findings.map(\.message)
        #expect(messages.contains { $0.contains("queued request #2 (PATCH") && $0.contains("which the store does not have") })
        #expect(findings.contains { $0.check == "membership" && $0.message.contains("entity #998") })
        #expect(findings.contains { $0.check == "link" && $0.message.contains("starts at entity #997") })
        #expect(findings.contains { $0.check == "link" && $0.message.contains("'NoSuchSet', which the model lacks") })
    }

    @Test func aDamagedFileIsReportedBySQLitesCheck() throws {
        let folder = TemporaryFolder()
        let path = folder.file("c.store")
        try storeWithAChange(in: folder).close()
        overwritePages(of: path, from: 3, count: 1)
        let file = try StoreFile(path: path)
        defer { file.close() }
        let findings: [StoreFinding]
        do { findings = try file.check() } catch { Issue.record("check: \(error)"); return }
        #expect(!findings.isEmpty)
        #expect(findings.allSatisfy { $0.check == "sqlite" })
    }

    @Test func aStoreLeftOpenIsQuickCheckedWhenItOpensAgain() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        let copy = folder.file("crashed.store")
        crashCopy(of: store.file.path, to: copy)
        #expect((readFile(copy + "-wal")?.count ?? 0) > 0)
        let reopened = try LocalStore.open(path: copy)
        defer { reopened.close() }
        #expect(reopened.file.recoveryFindings == [])
        #expect(try reopened.file.queuedRequests().count == 1)
        // Closed cleanly, the next open has nothing to check.
        reopened.close()
        let again = try StoreFile(path: copy)
        defer { again.close() }
        #expect(again.recoveryFindings == nil)
    }

    @Test func aDamagedStoreLeftOpenDoesNotOpen() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        let copy = folder.file("crashed.store")
        crashCopy(of: store.file.path, to: copy)
        // The pages the log does not hold are broken.
        overwritePages(of: copy, from: 2)
        #expect { try StoreFile(path: copy) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .storage && error.message.contains("was not closed cleanly")
                && error.message.contains("store check")
        }
    }

    @Test func aStoreOpenElsewhereIsNotTakenForACrash() throws {
        let folder = TemporaryFolder()
        let store = try storeWithAChange(in: folder)
        defer { store.close() }
        // Its log holds frames, but a connection (this process's) has it open: no check.
        let second = try StoreFile(path: store.file.path)
        defer { second.close() }
        #expect(second.recoveryFindings == nil)
    }
}
