import Testing
@_spi(Tool) @testable import OfflineOData

/// The store's record of its syncs (issue 25): the last download of each defining request, the
/// last upload, the queue's age, and the bounded sync log, against the real test services.
@Suite(.serialized) struct SyncRecordTests {
    static let countedV4 = DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'&$count=true")
    static let countedV2 = DefiningRequest(name: "Agencies",
                                           url: "TravelagencyCollection?$filter=country eq 'US'&$inlinecount=allpages")

    /// The number of US agencies the service has, asked of it directly.
    func servedUSAgencies(_ backend: TestBackend) throws -> Int {
        let answer = try backend.get("TravelagencyCollection/$count?$filter=country eq 'US'")
        #expect(answer.status == 200)
        return try #require(Int(String(decoding: answer.body, as: UTF8.self)))
    }

    func checkDownloadIsRecorded(_ kind: TestBackend.Kind, metadata: String, request: DefiningRequest) throws {
        let backend = try TestBackend.start(kind, pageSize: 3)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let path = folder.file("record.store")
        let store = try LocalStore.create(path: path, metadata: metadata, definingRequests: [request],
                                            serviceRoot: backend.serviceRoot)
        let served = try servedUSAgencies(backend)
        var reports: [DownloadProgress] = []
        let before = utcTimestamp()
        let outcome = try #require(try store.download { reports.append($0); return false }.first)
        let after = utcTimestamp()
        #expect(outcome.entities == served && outcome.expectedEntities == served && outcome.recordingProblem == nil)
        #expect(outcome.pages == (served + 2) / 3 && outcome.pages > 1)
        // Bytes grow page by page, and a page of agencies is at least some dozens of bytes.
        #expect(reports.map(\.bytes) == reports.map(\.bytes).sorted() && Set(reports.map(\.bytes)).count == reports.count)
        #expect(outcome.bytes == reports.last?.bytes && outcome.bytes > served * 20)
        #expect(reports.allSatisfy { $0.expectedEntities == served })

        let statistics = try store.syncStatistics()
        let download = try #require(statistics.downloads.first)
        #expect(statistics.downloads.count == 1)
        #expect(download == DownloadStatistics(
            definingRequest: "Agencies", entities: served, bytes: outcome.bytes, pages: outcome.pages,
            durationMilliseconds: download.durationMilliseconds, expectedEntities: served, outcome: .succeeded, message: nil,
            finishedAt: download.finishedAt, lastSuccessAt: download.finishedAt))
        #expect(before <= download.finishedAt && download.finishedAt <= after)
        #expect(download.durationMilliseconds >= 0 && download.durationMilliseconds < 60_000)
        let log = try store.syncLog()
        #expect(log.count == 1)
        #expect(log.first?.kind == .download && log.first?.definingRequest == "Agencies" && log.first?.entities == served)
        #expect(log.first?.bytes == outcome.bytes && log.first?.remaining == 0 && log.first?.outcome == .succeeded)
        store.close()

        // Kept in the store: a restart reads the same.
        let reopened = try LocalStore.open(path: path)
        defer { reopened.close() }
        #expect(try reopened.syncStatistics().downloads == statistics.downloads)
        #expect(try reopened.syncLog() == log)
    }

    @Test func aV4DownloadRecordsItsEntitiesBytesPagesAndTheAnnouncedTotal() throws {
        try checkDownloadIsRecorded(.v4, metadata: FlightSample.v4Metadata, request: Self.countedV4)
    }

    @Test func aV2DownloadRecordsItsEntitiesBytesPagesAndTheAnnouncedTotal() throws {
        try checkDownloadIsRecorded(.v2, metadata: FlightSample.v2Metadata, request: Self.countedV2)
    }

    @Test func aFailedDownloadIsRecordedAndKeepsTheTimeOfTheLastSuccess() throws {
        let backend = try TestBackend.start(.v4)
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("failed.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        _ = try store.download()
        let succeeded = try #require(try store.syncStatistics().downloads.first)
        backend.stop()
        #expect(throws: ODataError.self) { try store.download(full: true) }
        let failed = try #require(try store.syncStatistics().downloads.first)
        #expect(failed.outcome == .failed && failed.message?.isEmpty == false && failed.entities == 0)
        #expect(failed.lastSuccessAt == succeeded.finishedAt && failed.finishedAt >= succeeded.finishedAt)
        let log = try store.syncLog()
        #expect(log.map(\.outcome) == [.failed, .succeeded])
        #expect(log[0].message == failed.message && log[0].id > log[1].id)
        #expect(try store.syncLog(limit: 1).count == 1)
        #expect(throws: ODataError.self) { try store.syncLog(limit: -1) }
    }

    @Test func aStoppedDownloadIsRecordedAsStopped() throws {
        let backend = try TestBackend.start(.v4, pageSize: 3)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("stopped.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [Self.countedV4], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        let served = try servedUSAgencies(backend)
        #expect(throws: ODataError.self) { try store.download { $0.pages >= 2 } }
        let stopped = try #require(try store.syncStatistics().downloads.first)
        #expect(stopped.outcome == .stopped && stopped.pages == 2 && stopped.entities == 6 && stopped.lastSuccessAt == nil)
        let entry = try #require(try store.syncLog().first)
        #expect(entry.remaining == served - 6 && entry.outcome == .stopped)
    }

    @Test func anUploadWithARefusalIsLoggedWithTheRefusalAndCountedInTheArchive() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("upload.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        _ = try store.download()
        // An agency the store did not download: the service refuses its create as a conflict.
        let taken = try #require(try JSONValue.parse(backend.get("TravelagencyCollection?$filter=country ne 'US'&$top=1&$select=agencynum").body)["value"]?[0]?["agencynum"]?.stringValue)
        let accepted = #"{"agencynum":"99000510","name":"Observed","country":"IT"}"#
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(accepted.utf8))
        _ = try store.write(method: "POST", url: "TravelagencyCollection",
                            body: Array(#"{"agencynum":"\#(taken)","name":"Clash","country":"IT"}"#.utf8))
        let queued = try store.syncStatistics()
        #expect(queued.queuedRequests == 2 && queued.oldestQueuedAt != nil)
        #expect((queued.oldestQueuedAgeSeconds ?? -1) >= 0 && (queued.oldestQueuedAgeSeconds ?? 99) < 60)
        #expect(queued.lastUpload == nil)

        let outcome = try store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 1 && outcome.recordingProblem == nil)
        let statistics = try store.syncStatistics()
        #expect(statistics.queuedRequests == 0 && statistics.oldestQueuedAt == nil && statistics.oldestQueuedAgeSeconds == nil)
        #expect(statistics.archivedRequests == 1 && statistics.archivedInDoubt == 0)
        let upload = try #require(statistics.lastUpload)
        #expect(upload.sent == 1 && upload.archived == 1 && upload.bytes == accepted.utf8.count && upload.outcome == .succeeded)
        #expect(upload.lastSuccessAt == upload.finishedAt)
        let archived = try #require(try store.file.errorArchive().first)
        let log = try store.syncLog(limit: 2)
        #expect(log.map(\.kind) == [.upload, .refusal])
        #expect(log[0].entities == 1 && log[0].bytes == accepted.utf8.count && log[0].remaining == 0)
        #expect(log[1].requestID == archived.request.id && log[1].outcome == .conflict)
        #expect(log[1].message?.contains("POST TravelagencyCollection") == true)
    }

    @Test func aFailedUploadIsRecordedWithItsMessage() throws {
        let backend = try TestBackend.start(.v4)
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("down.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        _ = try store.download()
        backend.stop()
        _ = try store.write(method: "POST", url: "TravelagencyCollection",
                            body: Array(#"{"agencynum":"99000511","name":"Later","country":"IT"}"#.utf8))
        #expect(throws: ODataError.self) { try store.upload() }
        let upload = try #require(try store.syncStatistics().lastUpload)
        #expect(upload.outcome == .failed && upload.message?.isEmpty == false && upload.lastSuccessAt == nil)
        let entry = try #require(try store.syncLog().first)
        #expect(entry.kind == .upload && entry.outcome == .failed && entry.remaining == 1)
    }

    @Test func theLogKeepsItsCapacityDroppingTheOldestFirst() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("bounded.store"), metadata: FlightSample.v4Metadata)
        defer { store.close() }
        let extra = 25
        try store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                for number in 0..<(SyncLogEntry.capacity + extra) {
                    try SyncLogTable.append(SyncLogEntry(at: utcTimestamp(), kind: .download, definingRequest: "R\(number)",
                                                         outcome: .succeeded), in: db)
                }
            }
        }
        let log = try store.syncLog()
        #expect(log.count == SyncLogEntry.capacity)
        #expect(log.first?.definingRequest == "R\(SyncLogEntry.capacity + extra - 1)")
        #expect(log.last?.definingRequest == "R\(extra)")
    }

    @Test func aLogThatCannotBeWrittenDoesNotFailTheDownload() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("nolog.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in try db.execute("DROP TABLE ood_sync_log") }
        let outcome = try #require(try store.download().first)
        #expect(outcome.entities > 0)
        #expect(outcome.recordingProblem?.contains("could not be written") == true)
        #expect(try store.execute(method: "GET", url: "TravelagencyCollection/$count").body != Array("0".utf8))
    }

    @Test func theStoreAPIReportsTheRecordInItsStatusAndLog() async throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        var options = ODataStore.Options(path: folder.file("api.store"), serviceRoot: backend.serviceRoot)
        options.metadata = FlightSample.v4Metadata
        options.definingRequests = [FlightSample.usAgencies]
        let store = ODataStore.open(options)
        defer { store.close() }
        _ = try await store.perform(.download())
        let status = try await store.perform(.status)
        let sync = try #require(status.sync)
        #expect(sync.downloads.map(\.definingRequest) == ["Agencies"] && sync.downloads.allSatisfy { $0.outcome == .succeeded })
        #expect(try await store.perform(.syncStatistics) == sync)
        #expect(status.jsonText.contains(#""sync":{"downloads":[{"definingRequest":"Agencies""#))
        // The open's first download and this one: two entries, newest first.
        let log = try await store.perform(.syncLog())
        #expect(log.count == 2 && log[0].id > log[1].id && log.allSatisfy { $0.kind == .download })
        #expect(try await store.perform(.syncLog(limit: 1)) == [log[0]])
        #expect(SyncLogEntry.jsonText([log[0]]).hasPrefix(#"[{"id":\#(log[0].id),"at":""#))
    }

    @Test func secondsSinceReadsTheStoresTimestamps() {
        #expect(secondsSince("2000-01-01T00:00:00.000Z").map { $0 > 788_000_000 } == true)
        #expect(secondsSince(utcTimestamp()).map { $0 >= 0 && $0 < 5 } == true)
        #expect(secondsSince("yesterday") == nil)
    }
}
