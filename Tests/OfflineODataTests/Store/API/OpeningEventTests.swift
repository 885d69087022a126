#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// The event of a store's opening (the check after an unclean shutdown) reaches an app that
/// subscribes only after the opening: it waits for the first subscriber instead of being lost.
@Suite struct OpeningEventTests {
    /// A copy of an open store with one local change in its log: what kill -9 leaves.
    private func crashedStore(in folder: TemporaryFolder) throws -> ODataStore.Options {
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("99000601")))
        crashCopy(of: folder.file("flights.store"), to: folder.file("crashed.store"))
        return offlineFlightOptions(in: folder, name: "crashed.store")
    }

    @Test func aSubscriberAfterTheOpeningGetsTheUncleanShutdownCheck() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(try crashedStore(in: folder))
        defer { store.close() }
        _ = try store.waitUntilOpen()  // the check ran and was posted before anyone subscribed
        let first = EventRecorder()
        store.subscribe { first.record($0) }
        #expect(first.wait { $0.contains(.uncleanShutdownChecked([])) })
        // Only once: a later subscriber sees what comes from now on.
        let second = EventRecorder()
        store.subscribe { second.record($0) }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("99000602")))
        #expect(second.wait { !$0.isEmpty })
        #expect(!second.all.contains(.uncleanShutdownChecked([])))
        #expect(first.count { $0 == .uncleanShutdownChecked([]) } == 1)
    }

    @Test func aCleanlyClosedStoreHasNoOpeningEvent() throws {
        let folder = TemporaryFolder()
        let first = ODataStore.open(offlineFlightOptions(in: folder))
        _ = try first.waitUntilOpen()
        first.close()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        _ = try store.waitUntilOpen()
        let recorder = EventRecorder()
        store.subscribe { recorder.record($0) }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("99000603")))
        #expect(recorder.wait { !$0.isEmpty })
        #expect(!recorder.all.contains { if case .uncleanShutdownChecked = $0 { true } else { false } })
    }
}
