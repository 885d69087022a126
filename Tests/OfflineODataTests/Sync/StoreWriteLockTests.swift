#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A write that waits in vain for the store's write lock says what holds it and how long it
/// waited; a download that runs out of room says which defining request and what it stored.
@Suite struct StoreWriteLockTests {
    private let agency = Array(#"{"agencynum":"77000001","name":"Waiting"}"#.utf8)

    /// A download holds the write lock only while it keeps a page, and while it writes the kept
    /// pages into the tables (no network time): a write from another handle between pages goes
    /// through at once, and the download does not take its entity away.
    @Test func aWriteBetweenADownloadsPagesGoesThroughAtOnce() throws {
        let backend = try TestBackend.start(.v4, pageSize: 5)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let path = folder.file("lock.store")
        let downloading = try LocalStore.create(path: path, metadata: FlightSample.v4Metadata,
                                                  definingRequests: [DefiningRequest(name: "Agencies", url: "TravelagencyCollection")],
                                                  serviceRoot: backend.serviceRoot)
        defer { downloading.close() }
        let writer = try LocalStore.open(path: path)
        defer { writer.close() }
        var written: Result<Double, ODataError>?
        _ = try downloading.download { _ in
            if written == nil {
                let started = WriteHolder.monotonicSeconds()
                do throws(ODataError) {
                    _ = try writer.write(method: "POST", url: "TravelagencyCollection", body: agency)
                    written = .success(WriteHolder.monotonicSeconds() - started)
                } catch {
                    written = .failure(error)
                }
            }
            return false
        }
        let seconds = try #require(try written?.get())
        #expect(seconds < 2)
        let read = try writer.execute(method: "GET", url: "TravelagencyCollection('77000001')")
        #expect(read.status == 200)
    }

    @Test func aRecordLeftByAKilledDownloadIsNotBelieved() throws {
        let folder = TemporaryFolder()
        let path = folder.file("stale.store")
        let holder = try LocalStore.create(path: path, metadata: FlightSample.v4Metadata)
        defer { holder.close() }
        let writer = try LocalStore.open(path: path)
        defer { writer.close() }
        let recordPath = WriteHolder.recordPath(forStoreFile: try #require(holder.file.databaseFilePath))
        // What a download killed by SIGKILL leaves: the record, with nobody holding its lock.
        let fd = open(recordPath, O_CREAT | O_WRONLY, 0o600)
        let text = Array("1\na download of defining request 'Old' in process 1".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        try holder.file.withConnection { db throws(ODataError) in try db.execute("BEGIN IMMEDIATE") }
        defer { try? holder.file.withConnection { db throws(ODataError) in try db.execute("ROLLBACK") } }
        #expect { _ = try writer.write(method: "POST", url: "TravelagencyCollection", body: agency) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .busy && !error.message.contains("'Old'")
                && error.message.contains("held by another store handle or process") && error.message.contains("waited 5.")
        }
    }

    @Test func aDownloadThatRunsOutOfRoomNamesItsDefiningRequestAndWhatItStored() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("full.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [
                                                DefiningRequest(name: "Nothing", url: "TravelagencyCollection?$filter=agencynum eq 'none'"),
                                                DefiningRequest(name: "Bookings", url: "BookingCollection"),
                                            ],
                                            serviceRoot: backend.serviceRoot)
        defer { store.close() }
        // The store may not grow: as a full disk would, SQLite answers SQLITE_FULL.
        try store.file.withConnection { db throws(ODataError) in
            let pages = try db.scalarInt("PRAGMA page_count") ?? 0
            _ = try db.scalarInt("PRAGMA max_page_count = \(pages)")
        }
        #expect { _ = try store.download() } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .storage && error.isDiskFull
                && error.message.contains("defining request 'Bookings'")
                && error.message.contains("disk is full")
                && error.message.contains("stored before it in this download: 'Nothing'")
        }
        #expect(try store.definingRequests().first { $0.name == "Nothing" }?.lastDownload != nil)
        #expect(try store.definingRequests().first { $0.name == "Bookings" }?.lastDownload == nil)
    }
}
