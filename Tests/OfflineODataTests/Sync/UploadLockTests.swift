#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// One upload at a time per store file (issue 19, point 2): the lock itself, and two store
/// handles on one file uploading to the real V4 service.
@Suite(.serialized) struct UploadLockTests {
    // MARK: - The lock

    @Test func aSecondLockOnTheSamePathIsBusyUntilTheFirstIsReleased() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.store-upload.lock")
        let first = try UploadLock(path: path)
        #expect(access(path, F_OK) == 0)
        var statistics = stat()
        #expect(stat(path, &statistics) == 0 && statistics.st_mode & 0o777 == 0o600)
        let error = #expect(throws: ODataError.self) { try UploadLock(path: path) }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("another upload of this store is running (in this process or another)") == true)
        first.release()
        first.release()  // harmless twice
        let third = try UploadLock(path: path)
        third.release()
        // The file stays: deleting a lock file races with its next user.
        #expect(access(path, F_OK) == 0)
    }

    @Test func theLockIsReleasedWhenItsHolderGoesAway() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.store-upload.lock")
        do {
            let holder = try UploadLock(path: path)
            #expect(throws: ODataError.self) { try UploadLock(path: path) }
            _ = holder
        }
        // The holder's deinit closed its file: the kernel dropped the lock.
        let next = try UploadLock(path: path)
        next.release()
    }

    @Test func anotherProcessHoldingTheLockMakesItBusyAndItsDeathReleasesIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.store-upload.lock")
        // util-linux flock(1) takes the same flock; -o: its child (sleep) does not inherit it.
        let holder = try spawn(["/usr/bin/flock", "-o", "-x", path, "/bin/sleep", "30"])
        defer { kill(-holder, SIGKILL); var status: Int32 = 0; _ = waitpid(holder, &status, 0) }
        #expect(waitUntil { (try? UploadLock(path: path)) == nil }, "the other process never took the lock")
        let error = #expect(throws: ODataError.self) { try UploadLock(path: path) }
        #expect(error?.code == .busy)
        kill(holder, SIGKILL)  // no cleanup: the kernel releases the lock of a dead process
        var status: Int32 = 0
        _ = waitpid(holder, &status, 0)
        // flock(1)'s child shares the locked file until it closes it before exec (-o): on a busy
        // machine that can come a moment after the parent died.
        #expect(waitUntil { (try? UploadLock(path: path)) != nil }, "the dead process's lock was never released")
    }

    @Test func aLockFileThatCannotBeMadeIsAClearError() throws {
        let folder = TemporaryFolder()
        let path = folder.file("missing/s.store-upload.lock")
        let error = #expect(throws: ODataError.self) { try UploadLock(path: path) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.message.contains(path) == true)
    }

    @Test func everyNameOfOneStoreFileHasOneLockAndAnInMemoryStoreNone() throws {
        let folder = TemporaryFolder()
        let plain = folder.file("s.store")
        let byPlainPath = try StoreFile(path: plain)
        defer { byPlainPath.close() }
        let byURI = try StoreFile(path: folder.file("./s.store"))  // another spelling of the same path
        defer { byURI.close() }
        let link = folder.file("link.store")
        #expect(symlink(plain, link) == 0)
        let byLink = try StoreFile(path: link)
        defer { byLink.close() }
        let databasePath = try #require(byPlainPath.databaseFilePath)
        #expect(databasePath.hasPrefix("/") && databasePath.hasSuffix("/s.store"))
        #expect(byURI.databaseFilePath == databasePath && byLink.databaseFilePath == databasePath)

        // Holding the lock through one name makes the others busy.
        try UploadLock.holding(for: byLink) { () throws(ODataError) in
            #expect(access(UploadLock.lockPath(forStoreFile: databasePath), F_OK) == 0)
            let error = #expect(throws: ODataError.self) { try UploadLock.holding(for: byURI) {} }
            #expect(error?.code == .busy)
        }
        try UploadLock.holding(for: byURI) {}  // released when the body returned

        let memory = try StoreFile(path: ":memory:")
        defer { memory.close() }
        #expect(memory.databaseFilePath == nil)
        try UploadLock.holding(for: memory) { () throws(ODataError) in
            try UploadLock.holding(for: memory) {}  // nothing to lock: no other handle sees it
        }
    }

    // MARK: - Two handles on one store file, the real V4 service

    /// How many agencies of `city` the service has.
    func serviceCount(_ backend: TestBackend, city: String) throws -> Int {
        let answer = try backend.get("TravelagencyCollection/$count?$filter=city eq '\(city)'")
        #expect(answer.status == 200)
        return Int(String(decoding: answer.body, as: UTF8.self).trimmingSpaces()) ?? -1
    }

    /// Queues `count` keyless creates of agencies in `city` (odatapy assigns the keys, so a create
    /// sent twice would make two agencies).
    func queueCreates(_ store: LocalStore, city: String, count: Int) throws {
        for index in 1...count {
            let body = #"{"name":"Lock \#(index)","city":"\#(city)","country":"NO","currency":"NOK"}"#
            _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(body.utf8))
        }
    }

    @Test func aSecondUploadOfTheSameFileIsBusyAndSendsNothing() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let path = folder.file("lock.store")
        let first = try LocalStore.create(path: path, metadata: FlightSample.v4Metadata, serviceRoot: backend.serviceRoot)
        defer { first.close() }
        let second = try LocalStore.open(path: path)
        defer { second.close() }

        // One by one: the second handle tries while the first uploads, and the first stops after
        // one request (an error path: the lock must be released on it too).
        try queueCreates(first, city: "Lockholm", count: 3)
        var tried: Result<UploadOutcome, ODataError>?
        var queueWhileTried = -1
        let stopped = #expect(throws: ODataError.self) {
            try first.upload { _ in
                if tried == nil {
                    tried = Result { () throws(ODataError) in try second.upload() }
                    queueWhileTried = (try? second.file.queuedRequests().count) ?? -1
                }
                return true
            }
        }
        #expect(stopped?.code == .aborted)
        guard case .failure(let busy) = tried else { Issue.record("the second upload was not refused: \(String(describing: tried))"); return }
        #expect(busy.code == .busy)
        #expect(busy.message.contains("another upload of this store is running (in this process or another); try again when it has finished"))
        #expect(queueWhileTried == 2)  // the first's one answered request, nothing of the second's
        #expect(try serviceCount(backend, city: "Lockholm") == 1)
        #expect(try second.file.queuedRequests().count == 2)

        // The lock went with the first upload's error: the second handle sends the rest.
        #expect(try second.upload().withoutBytes == UploadOutcome(sent: 2, archived: 0))
        #expect(try serviceCount(backend, city: "Lockholm") == 3)
        #expect(try first.file.queuedRequests().isEmpty && first.file.errorArchive().isEmpty)

        // With $batch, the other way round, and the first upload running to its end.
        try queueCreates(second, city: "Lockvik", count: 3)
        var triedBatch: Result<UploadOutcome, ODataError>?
        let outcome = try second.upload(batch: true, batchSize: 1) { _ in
            if triedBatch == nil { triedBatch = Result { () throws(ODataError) in try first.upload(batch: true) } }
            return false
        }
        #expect(outcome.withoutBytes == UploadOutcome(sent: 3, archived: 0))
        guard case .failure(let busyBatch) = triedBatch else { Issue.record("the batch upload was not refused"); return }
        #expect(busyBatch.code == .busy)
        #expect(try serviceCount(backend, city: "Lockvik") == 3)
        #expect(try first.file.queuedRequests().isEmpty && first.file.errorArchive().isEmpty)
        #expect(try first.upload().withoutBytes == UploadOutcome(sent: 0, archived: 0))  // free again after a success
    }

    // MARK: - Helpers

    private func spawn(_ arguments: [String]) throws -> pid_t {
        let (pid, rc) = spawnProcess(arguments)
        guard rc == 0 else { throw TestBackendError(message: "cannot start \(arguments[0]): error \(rc)") }
        return pid
    }

    private func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return false
    }
}
