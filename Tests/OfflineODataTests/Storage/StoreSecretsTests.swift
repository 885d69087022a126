#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// What a store file keeps from other users and from itself: new files are the owner's alone, and
/// no password enters the file through the service root.
@Suite struct StoreSecretsTests {
    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    @Test func aNewStoreFileAndItsWriteAheadLogAreTheOwnersAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.file("private.store")
        let store = try LocalStore.create(path: path, metadata: LocalWriterTests.metadata, serviceRoot: "http://127.0.0.1:9/")
        defer { store.close() }
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","name":"A"}"#.utf8))
        #expect(mode(path) == 0o600)
        #expect(mode(path + "-wal") == 0o600)
    }

    @Test func anExistingFileKeepsTheModeItsOwnerGaveIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("shared.store")
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        close(fd)
        chmod(path, 0o640)
        // An empty file becomes a store only when accepted; it keeps its mode then.
        try StoreFile(path: path, acceptsEmptyFile: true).close()
        #expect(mode(path) == 0o640)
    }

    @Test func aServiceRootWithAPasswordIsRefusedAndNeverStored() throws {
        let folder = TemporaryFolder()
        let path = folder.file("secret.store")
        #expect {
            try LocalStore.create(path: path, metadata: LocalWriterTests.metadata, serviceRoot: "http://alice:s3cret@127.0.0.1:9/")
        } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .misuse && error.message.contains("carries a password") && !error.message.contains("s3cret")
        }
        #expect(access(path, F_OK) != 0)  // refused before any file was made
        let store = try LocalStore.create(path: path, metadata: LocalWriterTests.metadata, serviceRoot: "http://alice@127.0.0.1:9/")
        defer { store.close() }
        #expect(throws: ODataError.self) { try store.setServiceRoot("https://bob:pw@127.0.0.1:9/") }
        #expect(try store.serviceRoot() == "http://alice@127.0.0.1:9/")  // a user name alone is no secret
    }
}

/// A store path names a file: it is never read as an SQLite URI.
@Suite struct StorePathTests {
    @Test func aURIIsAPathNotAnInMemoryStore() throws {
        let folder = TemporaryFolder()
        // As a URI this would "create" a store in memory that no later open finds; as a path it
        // names a file in a folder called "file:" that does not exist.
        #expect { try StoreFile(path: "file:" + folder.file("u.store") + "?mode=memory") } throws: { error in
            (error as? ODataError)?.code == .cannotOpen
        }
    }
}
