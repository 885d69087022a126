#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// `Tests/encryption/independent_reader.py` (Python's `cryptography`, following only
/// docs/ENCRYPTION.md) decrypts an encrypted store, and Python's `sqlite3` finds its entities and
/// queue there: the format is what the document says.
@Suite struct IndependentReaderTests {
    /// Runs the reader on `store`, writing `out`; its JSON summary, or nil when it failed.
    static func runReader(_ arguments: [String], store: String, out: String, log: String) -> String? {
        let python = getenv("OOD_PYTHON").map { String(cString: $0) } ?? FlightSample.repositoryRoot + "/.venv/bin/python"
        let script = FlightSample.repositoryRoot + "/Tests/encryption/independent_reader.py"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, log + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let (pid, error) = spawnProcess([python, script] + arguments + [store, out], actions: &actions)
        guard error == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { return nil }
        return String(decoding: EncryptionFixture.bytes(of: log), as: UTF8.self)
    }

    @Test func theReaderFindsTheEntitiesAndTheQueueInTheFileAndTheWAL() throws {
        let folder = TemporaryFolder()
        let path = folder.file("e.store")
        let store = try EncryptionFixture.storeWithMarkers(at: path, key: EncryptionFixture.rawKey)
        // Open: the writes are in the WAL.
        let whileOpen = Self.runReader(["--key-hex", EncryptionFixture.rawKeyHex], store: path,
                                       out: folder.file("open.db"), log: folder.file("open.json"))
        store.close()
        // Closed: folded into the database file.
        let closed = Self.runReader(["--key-hex", EncryptionFixture.rawKeyHex], store: path,
                                    out: folder.file("closed.db"), log: folder.file("closed.json"))
        for summary in [whileOpen, closed] {
            let text = try #require(summary)
            #expect(text.contains(#""integrity": "ok""#))
            #expect(text.contains(#""ood_request_queue": 20"#))
            for marker in EncryptionFixture.markers { #expect(text.contains(marker)) }
        }
    }

    @Test func theReaderOpensAPassphraseStoreAndRefusesAWrongKey() throws {
        let folder = TemporaryFolder()
        let path = folder.file("p.store")
        try LocalStore.create(path: path, metadata: readTestMetadataV4, key: .passphrase("tr0ub4dor")).close()
        let summary = Self.runReader(["--passphrase", "tr0ub4dor"], store: path, out: folder.file("p.db"), log: folder.file("p.json"))
        #expect(try #require(summary).contains(#""ood_store_info""#))
        #expect(Self.runReader(["--passphrase", "tr0ub4dor!"], store: path, out: folder.file("q.db"), log: folder.file("q.json")) == nil)
    }
}
