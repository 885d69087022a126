import Testing
@_spi(Tool) @testable import OfflineOData

/// The behaviours of DESIGN.md §4.3–§4.6, each named for its seed, on the real test services.
@Suite(.serialized) struct StoreSeedBehaviourTests {
    /// A mixed store on `backend` with the US agencies as its defining request.
    func mixedStore(_ backend: TestBackend, in folder: TemporaryFolder,
                    defining: [DefiningRequest] = [FlightSample.usAgencies],
                    configure: (inout ODataStore.Options) -> Void = { _ in }) -> ODataStore {
        var options = ODataStore.Options(path: folder.file("mixed.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = defining
        configure(&options)
        return ODataStore.open(options)
    }

    /// How many entities the service itself has for `filter`.
    func serviceCount(_ backend: TestBackend, _ set: String, filter: String) throws -> Int {
        let answer = try backend.get("\(set)/$count?$filter=\(filter)")
        #expect(answer.status == 200)
        return Int(String(decoding: answer.body, as: UTF8.self).trimmingSpaces()) ?? -1
    }

    @Test func seed000_aRequestIssuedRightAfterOpenCompletesWithTheDownloadedData() async throws {
        let backend = try TestBackend.start(.v4, pageSize: 7)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder)
        defer { store.close() }
        let stateWhenIssued = store.state
        let response = try await store.get("TravelagencyCollection?$filter=country eq 'US'")
        #expect(stateWhenIssued != .open, "the request was to be issued before the store was open")
        let expected = try serviceCount(backend, "TravelagencyCollection", filter: "country eq 'US'")
        #expect(expected > 7, "the sample must need more than one page")
        #expect(try entityCount(response) == expected)
    }

    @Test func seed000_v2_aRequestIssuedRightAfterOpenCompletesWithTheDownloadedData() async throws {
        let backend = try TestBackend.start(.v2)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder)
        defer { store.close() }
        let response = try await store.get("TravelagencyCollection?$filter=country eq 'US'")
        let expected = try serviceCount(backend, "TravelagencyCollection", filter: "country eq 'US'")
        #expect(expected > 0)
        #expect(try entityCount(response) == expected)
    }

    @Test func seed002_theMixedRouterSendsCoveredCollectionsOfflineAndAFunctionImportOnline() async throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder)
        defer { store.close() }

        // A covered collection is answered offline: only what the defining request brought.
        let beijing = "TravelagencyCollection?$filter=city eq 'Beijing'"
        #expect(try await store.perform(.route(url: beijing)).destination == .offline)
        #expect(try entityCount(await store.get(beijing)) == 0)
        #expect(try serviceCount(backend, "TravelagencyCollection", filter: "city eq 'Beijing'") > 0)

        // A function import goes online, even though its entity set is covered, and the service answers it.
        let agency = try #require(try JSONValue.parse(await store.get("TravelagencyCollection?$top=1").body)["value"]?[0]?["agencynum"]?.stringValue)
        let call = "GetAgencyDetails(agencynum='\(agency)')"
        let route = try await store.perform(.route(url: call))
        #expect(route.destination == .online)
        #expect(route.reason.contains("function import"))
        let answer = try await store.get(call)
        #expect(answer.status == 200)
        #expect(answer.text.contains(agency))

        // An uncovered collection goes online too, and brings what the service has.
        #expect(try await store.perform(.route(url: "FlightCollection")).destination == .online)
        #expect(try entityCount(await store.get("FlightCollection?$top=3")) == 3)

        // The offline store alone refuses the function import.
        var offlineOptions = ODataStore.Options(path: folder.file("mixed.store"))
        offlineOptions.mode = .offline
        store.close()
        let offline = ODataStore.open(offlineOptions)
        defer { offline.close() }
        do throws(ODataError) {
            _ = try await offline.get(call)
            Issue.record("the offline store ran a function import")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("does not run operations"))
        }
    }

    @Test func seed003_004_aCreateCompletesThroughItsCompletionAndTheFollowUpReadSeesIt() async throws {
        let backend = try TestBackend.start(.v2)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder)
        defer { store.close() }
        let created = Protected<Result<StoreResponse, ODataError>?>(nil)
        let followUp = CompletionLedger()
        let body = Array(#"{"agencynum":"99000001","name":"Fly & Co","city":"Boston","country":"US"}"#.utf8)
        // The completion-closure style of seeds 003/004: the follow-up read is issued from the
        // create's completion, in its own context.
        store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: body))) { result in
            created.withLock { $0 = result }
            store.start(.request(ODataRequest(url: "TravelagencyCollection('99000001')"))) { followUp.record(0, $0) }
        }
        #expect(followUp.wait(for: 1))
        #expect(try created.withLock { $0 }?.get().status == 201)
        let read = try #require(try followUp.snapshot[0]?.first?.get())
        #expect(try JSONValue.parse(read.body)["d"]?["name"]?.stringValue == "Fly & Co")

        // And the change reaches the service with the next upload.
        let outcome = try await store.perform(.upload())
        #expect(outcome.sent == 1)
        #expect(try backend.get("TravelagencyCollection('99000001')").status == 200)
    }

    @Test func seed001_aSubscriberSeesFirstDownloadCompleteOnceAndBoundedChangeEvents() async throws {
        let backend = try TestBackend.start(.v4, size: "large", pageSize: 500)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let recorder = EventRecorder()
        let countAtEnable = Protected<Int?>(nil)
        // Defining requests with a large result: every booking (10,000) and the agencies.
        var options = ODataStore.Options(path: folder.file("large.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [DefiningRequest(name: "Bookings", url: "BookingCollection"), FlightSample.usAgencies]
        options.changeEventInterval = 0.05
        let store = ODataStore.open(options)
        defer { store.close() }
        // A UI-style subscriber: it enables itself on "first download complete" by reading.
        store.subscribe { event in
            recorder.record(event)
            if case .firstDownloadComplete = event {
                store.start(.request(ODataRequest(url: "BookingCollection/$count"))) { result in
                    countAtEnable.withLock { $0 = (try? result.get()).flatMap { Int($0.text) } }
                }
            }
        }
        #expect(recorder.wait(seconds: 120) { $0.contains(.stateChanged(.open)) })
        #expect(recorder.wait(seconds: 10) { _ in countAtEnable.withLock { $0 } != nil })
        let bookings = try serviceCount(backend, "BookingCollection", filter: "true")
        #expect(bookings >= 10_000)
        #expect(countAtEnable.withLock { $0 } == bookings)

        let events = recorder.all
        #expect(recorder.count { $0 == .firstDownloadComplete } == 1)
        let progress = recorder.count { if case .downloadProgress = $0 { true } else { false } }
        #expect(progress >= bookings / 500, "a progress event per page")
        // The bound: a download announces changes once per defining request (at its commit).
        let changes = recorder.changeEvents
        #expect(changes.count >= 1 && changes.count <= options.definingRequests.count,
                "\(changes.count) change events for a \(bookings)-entity download")
        #expect(changes.reduce(into: Set<String>()) { $0.formUnion($1) } == ["BookingCollection", "TravelagencyCollection"])
        print("seed001: \(bookings) bookings downloaded, \(progress) progress events, \(changes.count) change events, "
              + "\(recorder.count { $0 == .firstDownloadComplete }) first-download-complete")
        // The states in order: opening, downloading, open. "Opening" is posted when `open` returns,
        // so it may be delivered before this subscriber subscribed (events count from the subscription).
        let states = events.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
        #expect(states == [.opening, .downloading, .open] || states == [.downloading, .open], "\(states)")

        // Reopening the store does not download again, nor announce a first download.
        store.close()
        let reopened = ODataStore.open(options)
        defer { reopened.close() }
        let again = EventRecorder()
        reopened.subscribe(again.record)
        #expect(try await reopened.perform(.status).state == .open)
        #expect(again.count { $0 == .firstDownloadComplete } == 0)
    }

    @Test func cancellingARunningDownloadStopsItWithNothingLost() async throws {
        let backend = try TestBackend.start(.v4, size: "medium", pageSize: 100)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder, defining: [DefiningRequest(name: "Bookings", url: "BookingCollection")])
        defer { store.close() }
        let before = try await store.get("BookingCollection/$count").text
        #expect(Int(before) ?? 0 > 1_000)
        let recorder = EventRecorder()
        let handle = Protected<RequestHandle?>(nil)
        store.subscribe { event in
            recorder.record(event)
            // Cancel while the download runs: after its first page.
            if case .downloadProgress = event { handle.withLock { $0 }?.cancel() }
        }
        let outcome = Protected<Result<[DownloadOutcome], ODataError>?>(nil)
        handle.withLock { $0 = store.start(.download(DownloadOptions(full: true))) { result in outcome.withLock { $0 = result } } }
        #expect(recorder.wait(seconds: 60) { _ in outcome.withLock { $0 } != nil })
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            Issue.record("the cancelled download did not fail")
            return
        }
        #expect(error.code == .aborted)
        #expect(try await store.get("BookingCollection/$count").text == before)
        #expect(try await store.perform(.status).state == .open)
    }

    @Test func readsDuringADownloadSeeItsDataBeforeOrAfterItsTransactionNeverHalf() async throws {
        let backend = try TestBackend.start(.v4, size: "medium", pageSize: 100)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder, defining: [DefiningRequest(name: "Bookings", url: "BookingCollection")])
        defer { store.close() }
        let before = try #require(Int(try await store.get("BookingCollection/$count").text))
        // The service loses 25 bookings; the next full download removes them from the store, page by page
        // inside one transaction.
        let page = try JSONValue.parse(backend.get("BookingCollection?$top=25&$orderby=bookid").body)
        let removed = try #require(page["value"]?.arrayValue)
        #expect(removed.count == 25)
        for booking in removed {
            let key = ["carrid", "connid"].map { "\($0)='\(booking[$0]?.stringValue ?? "")'" }
                + ["fldate=\(booking["fldate"]?.stringValue ?? "")", "bookid='\(booking["bookid"]?.stringValue ?? "")'"]
            let deleted = try backend.send(HTTPRequest(method: "DELETE", url: backend.url("BookingCollection(\(key.joined(separator: ",")))"),
                                                       headers: [HTTPHeader("If-Match", "*")]))
            #expect(deleted.status == 204)
        }
        let finished = Protected<Result<[DownloadOutcome], ODataError>?>(nil)
        let seenDuringDownload = Protected<[String: Int]>([:])
        store.start(.download(DownloadOptions(full: true))) { result in finished.withLock { $0 = result } }
        // Two threads read while the download runs.
        issueConcurrently(threads: 2, each: 1) { _ in
            while finished.withLock({ $0 }) == nil {
                guard let count = try? store.executeAndWait(ODataRequest(url: "BookingCollection/$count")).text else { continue }
                if store.state == .downloading { seenDuringDownload.withLock { $0[count, default: 0] += 1 } }
            }
        }
        #expect(try finished.withLock { $0 }?.get().first?.entities == before - 25)
        let seen = seenDuringDownload.withLock { $0 }
        #expect(seen.values.reduce(0, +) > 10, "reads ran while the download ran")
        #expect(Set(seen.keys).isSubset(of: [String(before), String(before - 25)]), "counts seen: \(seen)")
        #expect(try await store.get("BookingCollection/$count").text == String(before - 25))
    }

    @Test func anUploadRequestTheServiceRefusesIsAnnouncedAsFailed() async throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = mixedStore(backend, in: folder)
        defer { store.close() }
        let recorder = EventRecorder()
        store.subscribe(recorder.record)
        let first = try #require(try JSONValue.parse(await store.get("TravelagencyCollection?$orderby=agencynum&$top=1").body)["value"]?[0])
        let key = try #require(first["agencynum"]?.stringValue)
        _ = try await store.update("TravelagencyCollection('\(key)')", body: Array(#"{"name":"Changed Offline"}"#.utf8))
        // Someone else changes the agency on the service: the store's ETag is stale now.
        let changed = try backend.send(HTTPRequest(method: "PATCH", url: backend.url("TravelagencyCollection('\(key)')"),
                                                   headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                   body: Array(#"{"name":"Changed Online"}"#.utf8)))
        #expect(changed.status < 300)
        let outcome = try await store.perform(.upload())
        #expect(outcome.archived == 1)
        #expect(recorder.wait(seconds: 10) { events in
            events.contains { if case .requestFailed(let archived) = $0 { archived.httpStatus == 412 } else { false } }
        })
        let failed = recorder.all.compactMap { if case .requestFailed(let archived) = $0 { archived } else { nil } }
        #expect(failed.count == 1)
        #expect(failed.first?.request.url == "TravelagencyCollection('\(key)')")
        #expect(try await store.perform(.errorArchive).count == 1)
    }

    @Test func theOnlineStoreGivesTheOfflineStoresShapes_v4() async throws {
        try await compareShapes(.v4, urls: [
            "TravelagencyCollection?$filter=country eq 'US'",
            "TravelagencyCollection?$filter=country eq 'US'&$orderby=name desc&$top=5&$select=agencynum,name,city",
            "TravelagencyCollection?$filter=country eq 'US' and startswith(name,'A')&$count=true",
            "TravelagencyCollection?$filter=country eq 'US'&$expand=AgencyBookings($select=bookid,carrid,agencynum)",
            "BookingCollection?$filter=BookingAgency/country eq 'US'&$top=10&$orderby=bookid",
        ])
    }

    @Test func theOnlineStoreGivesTheOfflineStoresShapes_v2() async throws {
        try await compareShapes(.v2, urls: [
            "TravelagencyCollection?$filter=country eq 'US'",
            "TravelagencyCollection?$filter=country eq 'US'&$orderby=name desc&$top=5&$select=agencynum,name,city",
            "TravelagencyCollection?$filter=country eq 'US' and substringof('a',name)&$inlinecount=allpages",
            "TravelagencyCollection?$filter=country eq 'US'&$expand=AgencyBookings",
        ])
    }

    /// Reads each URL through an online store and through an offline store holding the same
    /// data, and compares the answers (``ResponseShape``), keys and single entities included.
    func compareShapes(_ kind: TestBackend.Kind, urls: [String]) async throws {
        let backend = try TestBackend.start(kind)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let defining = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'&$expand=AgencyBookings")]
        var offlineOptions = ODataStore.Options(path: folder.file("shapes.store"), serviceRoot: backend.serviceRoot)
        offlineOptions.definingRequests = defining
        offlineOptions.mode = .offline
        let offline = ODataStore.open(offlineOptions)
        defer { offline.close() }
        var onlineOptions = ODataStore.Options(serviceRoot: backend.serviceRoot)
        onlineOptions.mode = .online
        let online = ODataStore.open(onlineOptions)
        defer { online.close() }

        let firstKey = try #require(try firstAgency(await online.get("TravelagencyCollection?$filter=country eq 'US'&$top=1")))
        var compared = 0
        for url in urls + ["TravelagencyCollection('\(firstKey)')", "TravelagencyCollection('\(firstKey)')/city"] {
            let offlineAnswer = try await offline.get(url)
            let onlineAnswer = try await online.get(url)
            #expect(offlineAnswer.status == onlineAnswer.status, "\(url)")
            let differences = ResponseShape.differences(try JSONValue.parse(offlineAnswer.body), try JSONValue.parse(onlineAnswer.body))
            #expect(differences.isEmpty, "\(url): \(differences.prefix(5))")
            compared += 1
        }
        // $count answers are plain text on both.
        let countURL = "TravelagencyCollection/$count?$filter=country eq 'US'"
        #expect(try await offline.get(countURL).text == (try await online.get(countURL).text))
        #expect(compared == urls.count + 2)
    }

    func firstAgency(_ response: StoreResponse) throws -> String? {
        let document = try JSONValue.parse(response.body)
        return (document["value"]?[0] ?? document["d"]?["results"]?[0])?["agencynum"]?.stringValue
    }
}


/// The comparison the shape tests rely on must see real differences.
@Suite struct ResponseComparisonTests {
    @Test func seesMissingMembersOtherValuesAndOtherCountsButNotAnnotationsOrNumberSpelling() throws {
        let base = try JSONValue.parse(Array(#"{"@odata.context":"a","value":[{"k":"A1","price":1234.5,"@odata.etag":"W/\"1\""}]}"#.utf8))
        let same = try JSONValue.parse(Array(#"{"@odata.context":"b","value":[{"k":"A1","price":"1234.50"}]}"#.utf8))
        #expect(ResponseShape.differences(base, same).isEmpty)
        let otherValue = try JSONValue.parse(Array(#"{"value":[{"k":"B2","price":1234.5}]}"#.utf8))
        #expect(ResponseShape.differences(base, otherValue) == [#"$.value[0].k: A1 offline, B2 online"#])
        let missing = try JSONValue.parse(Array(#"{"value":[{"k":"A1"}]}"#.utf8))
        #expect(!ResponseShape.differences(base, missing).isEmpty)
        let more = try JSONValue.parse(Array(#"{"value":[{"k":"A1","price":1234.5},{"k":"C3","price":1}]}"#.utf8))
        #expect(ResponseShape.differences(base, more) == ["$.value: 1 elements offline, 2 online"])
    }
}
