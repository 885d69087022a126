import Testing
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Opening without waiting, completions, cancellation, re-entrance and closing, on stores that
/// need no service (the service-backed behaviours are in `StoreSeedBehaviourTests`).
@Suite struct StoreLifecycleTests {
    @Test func anOfflineStoreOpensAndAnswersRequestsIssuedBeforeItWasOpen() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        // Issued at once: held while the file is created, then run in order.
        async let created = store.create("TravelagencyCollection", body: agencyBody("00000901"))
        async let read = store.get("TravelagencyCollection?$filter=agencynum eq '00000901'")
        #expect(try await created.status == 201)
        _ = try await read
        #expect(store.state == .open)
        #expect(try entityCount(await store.get("TravelagencyCollection")) == 1)
        let status = try await store.perform(.status)
        #expect(status.queuedRequests == 1)
        #expect(status.mode == .mixed)
        #expect(status.serviceRoot == nil)
    }

    @Test func heldRequestsRunInTheOrderIssued() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let order = Protected<[Int]>([])
        let ledger = CompletionLedger()
        for index in 0..<20 {
            let request = index % 2 == 0
                ? ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(format8(index)))
                : ODataRequest(url: "TravelagencyCollection/$count")
            store.start(.request(request)) { result in
                order.withLock { $0.append(index) }
                ledger.record(index, result)
            }
        }
        #expect(ledger.wait(for: 20))
        #expect(order.withLock { $0 } == Array(0..<20))
        // Each count saw exactly the creates issued before it.
        for (index, results) in ledger.snapshot where index % 2 == 1 {
            let response = try #require(try results.first?.get())
            #expect(response.text == String((index + 1) / 2))
        }
    }

    @Test func openingAFileThatIsNotAStoreFailsEveryHeldRequestOnce() throws {
        let folder = TemporaryFolder()
        folder.write("corrupt.store", Array(String(repeating: "not a database ", count: 400).utf8))
        var options = offlineFlightOptions(in: folder, name: "corrupt.store")
        options.definingRequests = []
        let store = ODataStore.open(options)
        defer { store.close() }
        let ledger = CompletionLedger()
        let total = 64
        let threads = 4
        issueConcurrently(threads: threads, each: total / threads) { index in
            let request = index % 3 == 0 ? ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("1"))
                                         : ODataRequest(url: "TravelagencyCollection")
            store.start(.request(request)) { ledger.record(index, $0) }
        }
        #expect(ledger.wait(for: total))
        #expect(store.state == .closed)
        // Requests after the failure get the same error.
        #expect(throws: ODataError.self) { try store.executeAndWait(ODataRequest(url: "TravelagencyCollection")) }
        // The witness that no second completion is still to come: close returns once every thread
        // of the store (the lane that ran the opening, the other lanes, the event hub) has ended.
        store.close()
        let results = ledger.snapshot
        #expect(results.count == total)
        for (_, completions) in results {
            #expect(completions.count == 1)
            guard case .failure(let error)? = completions.first else {
                Issue.record("a request on a store that failed to open succeeded")
                continue
            }
            #expect(error.code == .notAStore)
        }
    }

    @Test func anUnreachableServiceFailsEveryHeldRequestOnceWithANetworkError() throws {
        let folder = TemporaryFolder()
        // Nothing listens on port 1; a new store must fetch $metadata from there and cannot.
        var options = ODataStore.Options(path: folder.file("unreachable.store"), serviceRoot: "http://127.0.0.1:1/")
        options.definingRequests = [FlightSample.usAgencies]
        options.http.connectTimeout = 5
        let store = ODataStore.open(options)
        defer { store.close() }
        let recorder = EventRecorder()
        store.subscribe(recorder.record)
        let ledger = CompletionLedger()
        let total = 40
        issueConcurrently(threads: 4, each: total / 4) { index in
            let request = index % 4 == 0 ? ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("2"))
                                         : ODataRequest(url: "TravelagencyCollection?$filter=country eq 'US'")
            store.start(.request(request)) { ledger.record(index, $0) }
        }
        #expect(ledger.wait(for: total))
        #expect(store.state == .closed)
        // The witness that no second completion is still to come: close returns once every thread
        // of the store (the lane that ran the opening, the other lanes, the event hub) has ended.
        store.close()
        #expect(ledger.snapshot.count == total)
        for (index, completions) in ledger.snapshot {
            #expect(completions.count == 1, "request \(index) completed \(completions.count) times")
            guard case .failure(let error)? = completions.first else {
                Issue.record("request \(index) succeeded without a service")
                continue
            }
            #expect(error.code == .network)
        }
        #expect(recorder.wait(seconds: 5) { events in events.contains { if case .openFailed(let error) = $0 { error.code == .network } else { false } } })
    }

    @Test func aNewFileWithoutMetadataOrServiceFailsToOpenWithAClearError() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(ODataStore.Options(path: folder.file("empty.store")))
        defer { store.close() }
        do throws(ODataError) {
            _ = try await store.get("TravelagencyCollection")
            Issue.record("a store without a model answered")
        } catch {
            #expect(error.code == .misuse)
            #expect(error.message.contains("$metadata"))
        }
    }

    @Test func aCancelledHeldRequestCompletesAbortedAndNeverRuns() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let outcome = Protected<[Result<StoreResponse, ODataError>]>([])
        let handle = store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000777")))) { result in
            outcome.withLock { $0.append(result) }
        }
        handle.cancel()
        handle.cancel()
        // Once the store is open, the create must not have run.
        let count = try await store.get("TravelagencyCollection/$count")
        let results = outcome.withLock { $0 }
        #expect(results.count <= 1)
        if case .failure(let error)? = results.first {
            #expect(error.code == .aborted)
            #expect(count.text == "0")
        } else {
            // The store opened before the cancel arrived: then the create ran, and completed once.
            #expect(count.text == "1")
        }
    }

    @Test func aCompletionThatCallsBackIntoItsStoreGetsBusyForBlockingCallsAndRunsTheOthers() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let blocking = Protected<ODataError?>(nil)
        let nested = CompletionLedger()
        let outer = CompletionLedger()
        store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000555")))) { result in
            do throws(ODataError) {
                _ = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection"))
            } catch {
                blocking.withLock { $0 = error }
            }
            store.start(.request(ODataRequest(url: "TravelagencyCollection('00000555')"))) { nested.record(0, $0) }
            outer.record(0, result)
        }
        #expect(outer.wait(for: 1))
        #expect(nested.wait(for: 1))
        #expect(blocking.withLock { $0?.code } == .busy)
        let read = try #require(try nested.snapshot[0]?.first?.get())
        #expect(read.text.contains("00000555"))
    }

    @Test func anEventHandlerMayCloseItsStore() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        let recorder = EventRecorder()
        store.subscribe { event in
            recorder.record(event)
            if case .entitySetsChanged = event { store.close() }
        }
        _ = try await store.create("TravelagencyCollection", body: agencyBody("00000556"))
        #expect(recorder.wait { $0.contains(.stateChanged(.closed)) })
        #expect(store.state == .closed)
        do throws(ODataError) {
            _ = try await store.get("TravelagencyCollection")
            Issue.record("a closed store answered")
        } catch {
            #expect(error.code == .misuse)
        }
        store.close()
    }

    @Test func aBurstOfWritesYieldsBoundedCoalescedChangeEvents() async throws {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.changeEventInterval = 0.2
        let store = ODataStore.open(options)
        defer { store.close() }
        let recorder = EventRecorder()
        store.subscribe(recorder.record)
        let writes = 300
        let ledger = CompletionLedger()
        let started = monotonicSeconds()
        for index in 0..<writes {
            store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(format8(index))))) {
                ledger.record(index, $0)
            }
        }
        #expect(ledger.wait(for: writes, seconds: 120))
        let elapsed = monotonicSeconds() - started
        #expect(recorder.wait(seconds: 5) { events in
            events.contains { if case .entitySetsChanged = $0 { true } else { false } }
        })
        // The last merged event is due at most one interval after the last write; closing delivers
        // what the hub holds and returns once its thread has ended, so every change event is in.
        store.close()
        let changes = recorder.changeEvents
        // The documented bound: at most 1 + duration / interval change events, here far below one per write.
        let bound = 1 + Int((elapsed + 0.5) / options.changeEventInterval)
        #expect(changes.count >= 1)
        #expect(changes.count <= bound, "\(changes.count) change events for \(writes) writes in \(elapsed) s")
        #expect(changes.count < writes / 2)
        #expect(changes.allSatisfy { $0 == ["TravelagencyCollection"] })
    }

    @Test func closingFailsHeldRequestsAndLaterOnes() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        let ledger = CompletionLedger()
        for index in 0..<10 {
            store.start(.request(ODataRequest(url: "TravelagencyCollection"))) { ledger.record(index, $0) }
        }
        store.close()
        store.close()
        store.start(.request(ODataRequest(url: "TravelagencyCollection"))) { ledger.record(10, $0) }
        #expect(ledger.wait(for: 11))
        for (index, completions) in ledger.snapshot {
            #expect(completions.count == 1, "request \(index)")
        }
        guard case .failure(let error)? = ledger.snapshot[10]?.first else {
            Issue.record("a request after close succeeded")
            return
        }
        #expect(error.code == .misuse)
    }
}

/// An 8-digit agency number.
func format8(_ number: Int) -> String {
    let text = String(number)
    return String(repeating: "0", count: max(0, 8 - text.count)) + text
}

/// Runs `body(index)` for `threads * each` indexes, from `threads` threads at once.
func issueConcurrently(threads: Int, each: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Work: @unchecked Sendable {
        let body: @Sendable (Int) -> Void
        let start: Int
        let count: Int
        init(_ body: @escaping @Sendable (Int) -> Void, start: Int, count: Int) {
            self.body = body
            self.start = start
            self.count = count
        }
    }
    var ids: [pthread_t] = []
    for thread in 0..<threads {
        let work = Unmanaged.passRetained(Work(body, start: thread * each, count: each)).toOpaque()
        var id = pthread_t()
        pthread_create(&id, nil, { raw in
            guard let raw else { return nil }
            let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
            for index in work.start..<(work.start + work.count) { work.body(index) }
            return nil
        }, work)
        ids.append(id)
    }
    for id in ids { pthread_join(id, nil) }
}
