#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// ``ODataStore/events`` as an `AsyncSequence`, and closing in `deinit`.
@Suite struct EventStreamTests {
    @Test func theSequenceDeliversInOrderAndEndsWhenTheStoreCloses() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        let events = store.events
        let collected = Task { () -> [StoreEvent] in
            var seen: [StoreEvent] = []
            for await event in events { seen.append(event) }
            return seen
        }
        try store.waitUntilOpen()
        _ = try await store.create("TravelagencyCollection", body: agencyBody("99000501"))
        store.close()
        // The loop ends by itself: the close ended the sequence.
        let seen = await collected.value
        #expect(seen.contains(.stateChanged(.open)))
        #expect(seen.contains(.entitySetsChanged(["TravelagencyCollection"])))
        #expect(seen.last == .stateChanged(.closed))
        // A sequence made after the close ends at once.
        var afterClose = 0
        for await _ in store.events { afterClose += 1 }
        #expect(afterClose == 0)
    }

    @Test func cancellingTheLoopUnsubscribes() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        try store.waitUntilOpen()
        let started = Protected(false)
        let events = store.events  // subscribed from here
        #expect(store.eventHub.subscriberCount == 1)
        let loop = Task {
            for await _ in events { started.withLock { $0 = true } }
        }
        _ = try await store.create("TravelagencyCollection", body: agencyBody("99000502"))
        let recorder = EventRecorder()
        store.subscribe { recorder.record($0) }
        #expect(recorder.wait { _ in started.withLock { $0 } })
        #expect(store.eventHub.subscriberCount == 2)
        loop.cancel()
        await loop.value  // ends without the store closing
        #expect(store.eventHub.subscriberCount == 1)
    }

    @Test func aStoreDroppedWithoutCloseClosesItsFile() throws {
        let folder = TemporaryFolder()
        let options = offlineFlightOptions(in: folder)
        let recorder = EventRecorder()
        do {
            let store = ODataStore.open(options)
            store.subscribe { recorder.record($0) }
            _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("99000503")))
        }
        #expect(recorder.wait { $0.last == .stateChanged(.closed) })
        // The file is free: a new store opens it and sees the write.
        let again = ODataStore.open(options)
        defer { again.close() }
        #expect(try again.executeAndWait(ODataRequest(url: "TravelagencyCollection('99000503')")).status == 200)
    }

    @Test func aStoreWhoseLastReferenceGoesInItsOwnCallbackClosesWithoutWaitingForItself() throws {
        let folder = TemporaryFolder()
        let recorder = EventRecorder()
        let done = Protected(false)
        let leftScope = Signal()
        do {
            let store = ODataStore.open(offlineFlightOptions(in: folder))
            store.subscribe { recorder.record($0) }
            let holder = Protected<ODataStore?>(store)
            // The completion runs on a store thread and, once the test holds no reference any
            // more, drops the last one there.
            store.start(.status) { _ in
                _ = leftScope.wait(seconds: 10)
                holder.withLock { $0 = nil }
                done.withLock { $0 = true }
            }
        }
        leftScope.signal()
        #expect(recorder.wait { $0.last == .stateChanged(.closed) }, "deinit on a store thread did not close the store")
        #expect(done.withLock { $0 })
    }
}
