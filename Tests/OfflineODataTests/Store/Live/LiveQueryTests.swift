#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Live queries (issue 36): which commits run a watched read again, what is delivered, and the
/// local sources of change (writes, a `DELETE` of every row, a rollback, an unrelated set).
@Suite struct LiveQueryTests {
    static let boston = "TravelagencyCollection?$filter=city eq 'Boston'&$orderby=agencynum"

    @Test func theCurrentAnswerComesAtOnceThenEachChangedOne() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let log = AnswerLog()
        let query = try store.watch(Self.boston) { log.record($0) }
        #expect(log.wait(for: 1))
        #expect(agencyKeys(log.all.first) == [])
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000001")))
        #expect(log.wait { agencyKeys($0.last) == ["00000001"] })
        // A change of the same table that leaves the answer as it was runs the read, delivers nothing.
        let before = (runs: query.runCount, deliveries: query.deliveryCount)
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                  body: agencyBody("00000002", city: "Oslo")))
        #expect(store.liveQueriesSettle())
        #expect(query.runCount == before.runs + 1)
        #expect(query.deliveryCount == before.deliveries)
        #expect(log.count == before.deliveries)
        // A local delete, then undo of the pending changes, each delivered.
        _ = try store.executeAndWait(ODataRequest(method: "DELETE", url: "TravelagencyCollection('00000001')"))
        #expect(log.wait { agencyKeys($0.last) == [] })
        query.cancel()
        let delivered = log.count
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000003")))
        #expect(store.liveQueriesSettle())
        #expect(log.count == delivered)
        #expect(store.liveQueries.current?.watcherCount == 0)
    }

    @Test func theDependenciesAreTheTablesTheStatementsRead() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let plain = try store.watch("TravelagencyCollection") { _ in }
        #expect(plain.dependencies.tables == ["es/TravelagencyCollection"])
        #expect(!plain.dependencies.dependsOnEveryCommit)
        let expanded = try store.watch("CarrierCollection?$expand=CarrierFlights($expand=FlightBookings)") { _ in }
        #expect(expanded.dependencies.tables.isSuperset(of: ["es/CarrierCollection", "es/FlightCollection", "es/BookingCollection"]))
        let lambda = try store.watch("CarrierCollection?$filter=CarrierFlights/any(f: f/price gt 100)") { _ in }
        #expect(lambda.dependencies.tables.isSuperset(of: ["es/CarrierCollection", "es/FlightCollection"]))
        #expect(!lambda.dependencies.tables.contains("es/BookingCollection"))
        let count = try store.watch("BookingCollection/$count") { _ in }
        #expect(count.dependencies.tables == ["es/BookingCollection"])
    }

    @Test func aCommitToAnUnrelatedSetDoesNotRunTheRead() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let log = AnswerLog()
        let query = try store.watch("TravelagencyCollection") { log.record($0) }
        #expect(log.wait(for: 1))
        #expect(store.liveQueriesSettle())
        let ignoredBefore = store.liveQueries.current?.commitCounts.ignored ?? -1
        for index in 0..<5 {
            _ = try store.executeAndWait(ODataRequest(method: "POST", url: "CarrierCollection",
                                                      body: Array(#"{"carrid":"C\#(index)","carrname":"Carrier"}"#.utf8)))
        }
        #expect(store.liveQueriesSettle())
        #expect(query.runCount == 1)
        #expect(query.deliveryCount == 1)
        #expect((store.liveQueries.current?.commitCounts.ignored ?? 0) >= ignoredBefore + 1)
    }

    @Test func aDeleteOfEveryRowWithoutWhereIsSeen() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        for key in ["00000011", "00000012", "00000013"] {
            _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(key)))
        }
        let log = AnswerLog()
        _ = try store.watch(Self.boston) { log.record($0) }
        #expect(log.wait { agencyKeys($0.last)?.count == 3 })
        // A statement the engine did not compile for a write, which SQLite would run as a
        // truncation (no row events) were its truncate optimization left on.
        let local = try #require(try store.dispatcherOnceOpen().offline)
        try local.file.withConnection { db throws(ODataError) in try db.execute(#"DELETE FROM "es/TravelagencyCollection""#) }
        #expect(log.wait { agencyKeys($0.last) == [] })
    }

    @Test func aRolledBackTransactionDeliversNothingAndRunsNothing() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let log = AnswerLog()
        let query = try store.watch(Self.boston) { log.record($0) }
        #expect(log.wait(for: 1))
        #expect(store.liveQueriesSettle())
        let local = try #require(try store.dispatcherOnceOpen().offline)
        let published = local.file.publishedCommitCount
        #expect(throws: ODataError.self) {
            try local.file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    try db.execute(#"INSERT INTO "es/TravelagencyCollection" (agencynum, city) VALUES ('00000021', 'Boston')"#)
                    throw ODataError(.aborted, "rolled back on purpose")
                }
            }
        }
        // A write the service's rules refuse (no key, no body) rolls back too.
        #expect(throws: ODataError.self) {
            try store.executeAndWait(ODataRequest(method: "PATCH", url: "TravelagencyCollection('nothere')", body: Array("{}".utf8)))
        }
        #expect(store.liveQueriesSettle())
        #expect(local.file.publishedCommitCount == published)
        #expect(query.runCount == 1)
        #expect(log.count == 1)
    }

    @Test func anotherHandleOnTheSameFileIsSeen() throws {
        let folder = TemporaryFolder()
        let options = offlineFlightOptions(in: folder)
        let store = ODataStore.open(options)
        defer { store.close() }
        let log = AnswerLog()
        _ = try store.watch(Self.boston) { log.record($0) }
        #expect(log.wait(for: 1))
        let other = ODataStore.open(options)
        defer { other.close() }
        _ = try other.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000031")))
        #expect(log.wait { agencyKeys($0.last) == ["00000031"] })
    }

    @Test func anotherProcessWritingTheFileIsSeen() throws {
        // The other process is Python's sqlite3 module, which cannot read an encrypted test store.
        guard TestEncryption.key == nil else { return }
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000041", city: "Oslo")))
        let log = AnswerLog()
        _ = try store.watch(Self.boston) { log.record($0) }
        #expect(log.wait(for: 1))
        #expect(agencyKeys(log.all.last) == [])
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=10)
            db.execute('UPDATE "es/TravelagencyCollection" SET city = ? WHERE agencynum = ?', ('Boston', '00000041'))
            db.commit()
            """
        let python = getenv("OOD_PYTHON").map { String(cString: $0) } ?? "/usr/bin/python3"
        let (pid, rc) = spawnProcess([python, "-c", script, folder.file("flights.store")])
        try #require(rc == 0)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
        #expect(log.wait { agencyKeys($0.last) == ["00000041"] })
    }

    @Test func anEntityThatGoesAwayIsAFailedAnswerAndComesBack() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        // As a download leaves it: no pending change, so undoing its local delete brings it back.
        let local = try #require(try store.dispatcherOnceOpen().offline)
        try local.file.withConnection { db throws(ODataError) in
            try db.prepare(#"INSERT INTO "es/TravelagencyCollection" (agencynum, name, city, "_ood_etag") VALUES (?1, 'A', 'Boston', 'W/"1"')"#)
                .run([.text("00000051")])
        }
        let log = AnswerLog()
        _ = try store.watch("TravelagencyCollection('00000051')") { log.record($0) }
        #expect(log.wait(for: 1))
        _ = try store.executeAndWait(ODataRequest(method: "DELETE", url: "TravelagencyCollection('00000051')"))
        #expect(log.wait { if case .failure(let error)? = $0.last { error.code == .notFound } else { false } })
        _ = try store.performAndWait(.undoPendingChanges(url: "TravelagencyCollection('00000051')"))
        #expect(log.wait { if case .success? = $0.last { true } else { false } })
    }

    @Test func whatCannotBeWatchedIsRefused() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        #expect { try store.watch("$metadata") { _ in } } throws: { ($0 as? ODataError)?.code == .unsupported }
        #expect { try store.watch("NoSuchSet") { _ in } } throws: { ($0 as? ODataError) != nil }
        #expect { try store.watch("TravelagencyCollection", interval: -1) { _ in } } throws: { ($0 as? ODataError)?.code == .misuse }
        store.close()
        #expect { try store.watch("TravelagencyCollection") { _ in } } throws: { ($0 as? ODataError)?.code == .misuse }
    }

    @Test func aBurstOfWritesIsCoalesced() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let log = AnswerLog()
        let query = try store.watch("TravelagencyCollection/$count", interval: 0.05) { log.record($0) }
        #expect(log.wait(for: 1))
        let started = monotonicSeconds()
        for index in 0..<300 {
            store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                              body: agencyBody(agencyKey(100_000 + index))))) { _ in }
        }
        #expect(log.wait { if case .success(let response)? = $0.last { response.text == "300" } else { false } })
        let elapsed = monotonicSeconds() - started
        #expect(store.liveQueriesSettle())
        // At most one run per interval (plus the first), whatever the number of commits.
        #expect(Double(query.runCount) <= 2 + elapsed / 0.05)
    }

    @Test func watchersStartedAndStoppedFromSeveralThreadsWhileChangesCommit() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        try store.waitUntilOpen()
        let threads = 4, rounds = 25
        let done = CompletionLedger()
        let failures = Protected<[String]>([])
        for thread in 0..<threads {
            let started = spawnThread {
                for round in 0..<rounds {
                    do {
                        let log = AnswerLog()
                        let query = try store.watch("TravelagencyCollection?$filter=city eq 'C\(thread)'", interval: 0) { log.record($0) }
                        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                                  body: agencyBody(agencyKey(thread * 1000 + round), city: "C\(thread)")))
                        if !log.wait(until: { agencyKeys($0.last)?.count == round + 1 }) {
                            failures.withLock { $0.append("thread \(thread), round \(round): \(log.lastText ?? "nothing")") }
                        }
                        query.cancel()
                        let delivered = log.count
                        query.cancel()
                        if log.count != delivered { failures.withLock { $0.append("a delivery after cancel") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                done.record(thread, .success(StoreResponse(status: 200, contentType: "", body: [])))
            }
            if let started { pthread_detach(started) }
        }
        #expect(done.wait(for: threads, seconds: 120))
        #expect(failures.withLock { $0 } == [])
        #expect(store.liveQueriesSettle())
        #expect(store.liveQueries.current?.watcherCount == 0)
    }

    @Test func theAsyncSequenceDeliversAndEndsWhenTheStoreCloses() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        let answers = try store.watch("TravelagencyCollection/$count")
        var seen: [String] = []
        for try await answer in answers {
            seen.append(answer.text)
            if seen.count == 1 {
                _ = try await store.create("TravelagencyCollection", body: agencyBody("00000061"))
            } else {
                store.close()
            }
        }
        #expect(seen == ["0", "1"])
    }
}

/// `value` as an eight-digit agency key.
func agencyKey(_ value: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
