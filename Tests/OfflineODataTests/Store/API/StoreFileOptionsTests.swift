import Testing
@_spi(Tool) @testable import OfflineOData

/// The store API over the store file's rules: an empty file is refused unless the options accept
/// it, and `checkStore` checks the file.
@Suite struct StoreFileOptionsTests {
    @Test func anEmptyFileFailsTheOpenByNameUnlessTheOptionsAcceptIt() async throws {
        let folder = TemporaryFolder()
        folder.write("flights.store", [])
        let refused = ODataStore.open(offlineFlightOptions(in: folder))
        defer { refused.close() }
        do throws(ODataError) {
            _ = try await refused.get("TravelagencyCollection")
            Issue.record("an empty file was made a store")
        } catch {
            #expect(error.code == .notAStore)
            #expect(error.message.contains(folder.file("flights.store")) && error.message.contains("empty file (0 bytes)"))
        }
        var options = offlineFlightOptions(in: folder)
        options.acceptsEmptyFile = true
        let accepted = ODataStore.open(options)
        defer { accepted.close() }
        _ = try await accepted.create("TravelagencyCollection", body: agencyBody("42"))
        #expect(try await accepted.perform(.checkStore()) == [])
        #expect(try await accepted.perform(.checkStore(quick: true)) == [])
    }

    @Test func aStoreLeftOpenIsReportedByAnEventWithTheQuickChecksFindings() async throws {
        let folder = TemporaryFolder()
        let running = ODataStore.open(offlineFlightOptions(in: folder))
        defer { running.close() }
        _ = try await running.create("TravelagencyCollection", body: agencyBody("43"))
        crashCopy(of: folder.file("flights.store"), to: folder.file("crashed.store"))
        let recorder = EventRecorder()
        let reopened = ODataStore.open(offlineFlightOptions(in: folder, name: "crashed.store"))
        defer { reopened.close() }
        reopened.subscribe(recorder.record)
        #expect(try await reopened.perform(.requestQueue).count == 1)
        #expect(recorder.wait(seconds: 5) { $0.contains(.uncleanShutdownChecked([])) })
        #expect(StoreEvent.uncleanShutdownChecked([]).jsonText == #"{"findings":[]}"#)
        #expect(StoreEvent.uncleanShutdownChecked([]).kindNumber == 10)
    }

    @Test func checkStoreNeedsAStoreFile() async throws {
        var options = ODataStore.Options(serviceRoot: "http://127.0.0.1:9/")
        options.metadata = FlightSample.v4Metadata
        let store = ODataStore.open(options)
        defer { store.close() }
        do throws(ODataError) {
            _ = try await store.perform(.checkStore())
            Issue.record("an online store was checked")
        } catch {
            #expect(error.code == .misuse && error.message.contains("a store check needs a store file"))
        }
    }
}
