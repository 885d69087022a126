#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A write-protected store opens for reads; writes, downloads and uploads say "read-only".
/// File modes do not bind root: as root these run through the tool and binding tests instead
/// (`Tests/tool/test_store_files.py`, which drops to an unprivileged user).
@Suite(.enabled(if: geteuid() != 0, "file modes do not bind root")) struct ReadOnlyStoreTests {
    private func readOnlyStore(in folder: TemporaryFolder, protectingFolder: Bool) throws -> String {
        let path = folder.file("ro.store")
        let store = try LocalStore.create(path: path, metadata: LocalWriterTests.metadata, serviceRoot: "http://127.0.0.1:9/")
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","name":"A"}"#.utf8))
        store.close()
        chmod(path, 0o400)
        if protectingFolder { chmod(folder.path, 0o500) }
        return path
    }

    @Test(arguments: [false, true]) func aWriteProtectedStoreAnswersReadsAndRefusesWrites(protectingFolder: Bool) throws {
        let folder = TemporaryFolder()
        let path = try readOnlyStore(in: folder, protectingFolder: protectingFolder)
        defer { chmod(folder.path, 0o700) }
        let store = try LocalStore.open(path: path)
        defer { store.close() }
        #expect(store.file.isReadOnly)
        #expect(try store.file.queuedRequests().count == 1)
        #expect(try store.execute(method: "GET", url: "TravelagencyCollection").status == 200)
        #expect(try store.check() == [])
        #expect { _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"2"}"#.utf8)) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .storage && error.message.contains("read-only") && error.message.contains(path)
        }
        #expect { _ = try store.upload() } throws: { ($0 as? ODataError)?.message.contains("read-only") == true }
        #expect { _ = try store.download() } throws: { ($0 as? ODataError)?.message.contains("read-only") == true }
    }
}
