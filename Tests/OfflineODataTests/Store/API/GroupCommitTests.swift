import Testing
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Local writes queued one after the other commit together: one transaction (one fsync) for the
/// group, each write in its own savepoint, each completion after the commit, in issue order.
@Suite struct GroupCommitTests {
    /// Holds the write lane: a write-lane job whose completion waits until `release()`.
    final class Gate: @unchecked Sendable {
        private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        init() { sem_init(semaphore, 0, 0) }
        deinit { sem_destroy(semaphore); semaphore.deallocate() }
        func wait() { sem_wait(semaphore) }
        func release() { sem_post(semaphore) }
    }

    @Test func writesQueuedBehindOneAnotherCommitAsOneGroupAndFailAlone() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        try store.waitUntilOpen()
        // `waitUntilOpen` completes as a request held during opening, and those still arrive held
        // and run one by one for a moment after; the grouping shows once the store takes jobs itself.
        for _ in 0..<2_000 where store.dispatcherWithoutQueuedWrites() == nil { usleep(1_000) }
        let gate = Gate()
        store.start(.deleteArchivedRequests()) { _ in gate.wait() }  // the write lane waits here
        let ledger = CompletionLedger()
        let order = Protected<[Int]>([])
        let count = 300
        for index in 0..<count {
            // Request 150 repeats the key of request 0: refused, and refused alone.
            let key = index == 150 ? "70000000" : String(70_000_000 + index)
            store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(key)))) { result in
                order.withLock { $0.append(index) }
                ledger.record(index, result)
            }
        }
        // Issued after the writes: it must see every one that succeeded.
        let counted = Protected<String?>(nil)
        let countAnswered = Signal()
        store.start(.request(ODataRequest(url: "TravelagencyCollection/$count"))) { result in
            counted.withLock { $0 = (try? result.get())?.text }
            countAnswered.signal()
        }
        gate.release()
        #expect(ledger.wait(for: count))
        let results = ledger.snapshot
        #expect(results.values.allSatisfy { $0.count == 1 })
        let failed = results.filter { (try? $0.value[0].get()) == nil }.map(\.key)
        #expect(failed == [150])
        if case .failure(let error) = results[150]?.first { #expect(error.code == .constraint) }
        #expect(order.withLock { $0 } == Array(0..<count))
        let groups = store.writeGroupCounts.withLock { $0 }
        #expect(groups.groups == 1 && groups.writes == count, "groups: \(groups)")

        let queue = try store.performAndWait(.requestQueue)
        #expect(queue.count == count - 1)
        let expectedBodies: [String] = (0..<count).filter { $0 != 150 }.map { index in
            String(decoding: agencyBody(String(70_000_000 + index)), as: UTF8.self)
        }
        #expect(queue.compactMap(\.body) == expectedBodies)
        #expect(countAnswered.wait(seconds: 2))
        #expect(counted.withLock { $0 } == String(count - 1))
    }

    @Test func aGroupSurvivesClosingAndReopening() throws {
        let folder = TemporaryFolder()
        let options = offlineFlightOptions(in: folder)
        do {
            let store = ODataStore.open(options)
            try store.waitUntilOpen()
            let gate = Gate()
            store.start(.deleteArchivedRequests()) { _ in gate.wait() }
            let ledger = CompletionLedger()
            for index in 0..<50 {
                store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(String(71_000_000 + index))))) {
                    ledger.record(index, $0)
                }
            }
            gate.release()
            #expect(ledger.wait(for: 50))
            store.close()
        }
        let reopened = ODataStore.open(options)
        defer { reopened.close() }
        let count = try reopened.executeAndWait(ODataRequest(url: "TravelagencyCollection/$count"))
        #expect(count.text == "50")
        #expect(try reopened.performAndWait(.requestQueue).count == 50)
    }
}
