#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// An encrypted store works as a plain one, with its key, and is unreadable without it.
@Suite struct EncryptedStoreTests {
    @Test func anEncryptedStoreReopensWithItsKeyAndHoldsItsWrites() throws {
        let folder = TemporaryFolder()
        let path = folder.file("e.store")
        try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey).close()
        #expect(StoreCipher.isEncrypted(path))
        let store = try LocalStore.open(path: path, key: EncryptionFixture.rawKey)
        defer { store.close() }
        #expect(store.file.isEncrypted)
        let answer = try store.execute(method: "GET", url: "Agencies?$filter=ID eq 3")
        #expect(answer.text.contains(EncryptionFixture.markers[2]))
        #expect(try store.file.queuedRequests().count == 20)
        #expect(try store.file.journalMode() == "wal")
    }

    @Test func noMarkerReachesTheFilesOfAnEncryptedStoreButAPlainStoreShowsThem() throws {
        let folder = TemporaryFolder()
        let encrypted = try EncryptionFixture.storeWithMarkers(at: folder.file("e.store"), key: EncryptionFixture.rawKey)
        let plainFolder = TemporaryFolder()
        let plain = try EncryptionFixture.storeWithMarkers(at: plainFolder.file("p.store"), key: nil)
        // Searched while open (the WAL holds the writes) and again after closing.
        for round in 0..<2 {
            for marker in EncryptionFixture.markers {
                #expect(EncryptionFixture.filesContaining(marker, in: folder.path).isEmpty, "round \(round): \(marker)")
                #expect(!EncryptionFixture.filesContaining(marker, in: plainFolder.path).isEmpty, "round \(round): \(marker)")
            }
            encrypted.close()
            plain.close()
        }
    }

    @Test func aWrongKeyAMissingKeyAndAKeyForAPlainStoreAreKeyErrorsThatLeaveTheFileAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.file("e.store")
        try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey).close()
        let before = EncryptionFixture.bytes(of: path)
        #expect { try LocalStore.open(path: path, key: EncryptionFixture.otherRawKey) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .key && error.message.contains("wrong key")
        }
        #expect { try LocalStore.open(path: path, key: .passphrase("not it")) } throws: { ($0 as? ODataError)?.code == .key }
        #expect { try LocalStore.open(path: path) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .key && error.message.contains("encrypted")
        }
        #expect(EncryptionFixture.bytes(of: path) == before)
        #expect(!fileExists(path + "-wal"))

        let plainPath = folder.file("p.store")
        try EncryptionFixture.storeWithMarkers(at: plainPath, key: nil).close()
        #expect { try LocalStore.open(path: plainPath, key: EncryptionFixture.rawKey) } throws: { ($0 as? ODataError)?.code == .key }
    }

    @Test func aPassphraseStoreOpensWithThePassphraseOnly() throws {
        let folder = TemporaryFolder()
        let path = folder.file("pass.store")
        try LocalStore.create(path: path, metadata: readTestMetadataV4, key: .passphrase("correct horse")).close()
        try LocalStore.open(path: path, key: .passphrase("correct horse")).close()
        #expect { try LocalStore.open(path: path, key: .passphrase("correct horse.")) } throws: { ($0 as? ODataError)?.code == .key }
        #expect { try LocalStore.open(path: path, key: EncryptionFixture.rawKey) } throws: { ($0 as? ODataError)?.code == .key }
    }

    @Test func aRawKeyMustHave32Bytes() throws {
        let folder = TemporaryFolder()
        #expect { try LocalStore.create(path: folder.file("k.store"), metadata: readTestMetadataV4, key: .raw([1, 2, 3])) } throws: {
            ($0 as? ODataError)?.code == .key
        }
    }

    @Test func keysAreNeverPrinted() {
        let key = StoreKey.passphrase("hunter2-secret")
        #expect(!"\(key)".contains("hunter2"))
        #expect(!String(reflecting: key).contains("hunter2"))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(StoreKey.fromHex(EncryptionFixture.rawKeyHex).map { "\($0)" } == "StoreKey.raw(<redacted>)")
        #expect(StoreKey.fromHex("12") == nil)
    }

    @Test func aLargeSortStaysInMemory() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("sort.store"), metadata: readTestMetadataV4, key: EncryptionFixture.rawKey)
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("CREATE TABLE big(x)")
            try db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) INSERT INTO big SELECT randomblob(64) FROM n")
            #expect(try db.scalarInt("SELECT count(*) FROM (SELECT x FROM big ORDER BY x)") == 200_000)
        }
    }
}
