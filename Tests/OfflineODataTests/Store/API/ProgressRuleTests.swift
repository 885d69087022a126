import Testing
@_spi(Tool) @testable import OfflineOData

/// Every surface stops a download or an upload when its progress callback answers true (C:
/// non-zero, Python: a true value, Swift: `stoppingWhen`), against the sample V4 service.
@Suite struct ProgressRuleTests {
    @Test func aProgressCallbackAnsweringTrueStopsADownloadAndAnUpload() async throws {
        let backend = try TestBackend.start(.v4, pageSize: 7)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        var options = ODataStore.Options(path: folder.file("rule.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [FlightSample.usAgencies]
        let store = ODataStore.open(options)
        defer { store.close() }
        try store.waitUntilOpen()

        let pages = Protected(0)
        let outcomes = try await store.perform(.download(DownloadOptions(full: true, progress: { _ in
            pages.withLock { $0 += 1 }
            return false
        })))
        #expect(outcomes.count == 1)
        #expect(pages.withLock { $0 } > 1, "the sample needs more than one page of 7")
        await #expect { try await store.perform(.download(DownloadOptions(progress: { _ in true }))) } throws: { error in
            (error as? ODataError)?.code == .aborted
        }

        _ = try await store.create("TravelagencyCollection", body: agencyBody("99000301"))
        _ = try await store.create("TravelagencyCollection", body: agencyBody("99000302"))
        await #expect { try await store.perform(.upload(UploadOptions(progress: { _ in true }))) } throws: { error in
            (error as? ODataError)?.code == .aborted
        }
        // Stopped after the first answered request: the second is still queued.
        #expect(try await store.perform(.requestQueue).count == 1)
        let uploaded = try await store.perform(.upload(UploadOptions(progress: { _ in false })))
        #expect(uploaded.sent == 1)
        #expect(try await store.perform(.requestQueue).isEmpty)
    }
}
