#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Rekey: another key, plain to encrypted and back, everything in the store kept.
@Suite struct RekeyTests {
    /// Row counts of every table and index of the store, to compare before and after.
    static func contents(_ path: String, key: StoreKey?) throws -> [String] {
        let store = try LocalStore.open(path: path, key: key)
        defer { store.close() }
        return try store.file.withConnection { db throws(ODataError) in
            let names = try db.prepare("SELECT type || ' ' || name FROM sqlite_schema ORDER BY name")
            var rows: [String] = []
            while try names.step() { rows.append(names.text(at: 0) ?? "") }
            names.rewind()
            var result: [String] = []
            for row in rows where row.hasPrefix("table ") {
                let name = String(row.dropFirst(6))
                let count = try db.scalarInt("SELECT count(*) FROM \(quoteIdentifier(name))") ?? -1
                result.append("\(name): \(count)")
            }
            return result + rows
        }
    }

    @Test func aPlainStoreIsEncryptedInPlaceAndDecryptedAgainWithEverythingKept() throws {
        let folder = TemporaryFolder()
        let path = folder.file("c.store")
        let store = try EncryptionFixture.storeWithMarkers(at: path, key: nil)
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("CREATE INDEX rekey_test_index ON ood_request_queue(id)")
        }
        store.close()
        let before = try Self.contents(path, key: nil)
        #expect(before.contains("index rekey_test_index"))
        #expect(before.contains("ood_request_queue: 20"))

        try ODataStore.rekey(path: path, from: nil, to: EncryptionFixture.rawKey)
        #expect(StoreCipher.isEncrypted(path))
        for marker in EncryptionFixture.markers { #expect(EncryptionFixture.filesContaining(marker, in: folder.path).isEmpty) }
        #expect(try Self.contents(path, key: EncryptionFixture.rawKey) == before)
        #expect { try LocalStore.open(path: path) } throws: { ($0 as? ODataError)?.code == .key }

        try ODataStore.rekey(path: path, from: EncryptionFixture.rawKey, to: .passphrase("new words"))
        #expect { try LocalStore.open(path: path, key: EncryptionFixture.rawKey) } throws: { ($0 as? ODataError)?.code == .key }
        #expect(try Self.contents(path, key: .passphrase("new words")) == before)

        try ODataStore.rekey(path: path, from: .passphrase("new words"), to: nil)
        #expect(!StoreCipher.isEncrypted(path))
        #expect(try Self.contents(path, key: nil) == before)
        #expect(!EncryptionFixture.filesContaining(EncryptionFixture.markers[0], in: folder.path).isEmpty)
        #expect(!fileExists(path + ".rekeying"))
    }

    @Test func aWrongOldKeyChangesNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("w.store")
        try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey).close()
        let bytes = EncryptionFixture.bytes(of: path)
        #expect { try ODataStore.rekey(path: path, from: EncryptionFixture.otherRawKey, to: nil) } throws: {
            ($0 as? ODataError)?.code == .key
        }
        #expect { try ODataStore.rekey(path: path, from: nil, to: nil) } throws: { ($0 as? ODataError)?.code == .misuse }
        #expect(EncryptionFixture.bytes(of: path) == bytes)
        #expect(!fileExists(path + ".rekeying"))
    }

    @Test func aStoreOpenElsewhereIsNotReplaced() throws {
        let folder = TemporaryFolder()
        let path = folder.file("o.store")
        let store = try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey)
        defer { store.close() }
        #expect { try ODataStore.rekey(path: path, from: EncryptionFixture.rawKey, to: EncryptionFixture.otherRawKey) } throws: {
            ($0 as? ODataError)?.code == .busy
        }
        #expect(!fileExists(path + ".rekeying"))
        #expect(try store.file.queuedRequests().count == 20)
    }

    @Test func aLeftoverCopyOfAKilledRekeyIsReplaced() throws {
        let folder = TemporaryFolder()
        let path = folder.file("l.store")
        try EncryptionFixture.storeWithMarkers(at: path, key: nil).close()
        folder.write("l.store.rekeying", Array("half a copy".utf8))
        try ODataStore.rekey(path: path, from: nil, to: EncryptionFixture.rawKey)
        #expect(try LocalStore.open(path: path, key: EncryptionFixture.rawKey).file.queuedRequests().count == 20)
    }
}
