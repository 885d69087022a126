import Testing
@_spi(Tool) @testable import OfflineOData

/// Reads sent to the service follow its pages (issue 21), on both real test services with pages
/// smaller than the answer: odatapy (V4, `@odata.nextLink`) and mock-sap (V2, `__next`).
@Suite(.serialized) struct OnlinePagingTests {
    static let pageSize = 20

    /// An online store on `backend`, its HTTP limits as `configure` sets them.
    func onlineStore(_ backend: TestBackend, configure: (inout HTTPOptions) -> Void = { _ in }) -> ODataStore {
        var options = ODataStore.Options(serviceRoot: backend.serviceRoot)
        options.mode = .online
        configure(&options.http)
        return ODataStore.open(options)
    }

    /// The entities of a collection answer, V4 or V2.
    func entities(_ response: StoreResponse) throws -> [JSONValue] {
        let document = try JSONValue.parse(response.body)
        let list = document["value"]?.arrayValue ?? document["d"]?["results"]?.arrayValue
        return try #require(list, "not a collection: \(response.text.prefix(200))")
    }

    /// How many entities the service has in `set`, by its own `$count`.
    func serviceCount(_ backend: TestBackend, _ set: String) throws -> Int {
        let answer = try backend.get("\(set)/$count")
        return Int(String(decoding: answer.body, as: UTF8.self).trimmingSpaces()) ?? -1
    }

    /// The count a collection answer carries (`@odata.count`, V2's `__count`).
    func inlineCount(_ response: StoreResponse) throws -> Int? {
        let document = try JSONValue.parse(response.body)
        if let count = document["@odata.count"]?.int64Value { return Int(count) }
        return document["d"]?["__count"]?.stringValue.flatMap { Int($0) }
    }

    func countOption(_ kind: TestBackend.Kind) -> String { kind == .v4 ? "$count=true" : "$inlinecount=allpages" }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func aReadOfACollectionAnswersEveryPageAsOneWithTheFirstPagesCount(kind: TestBackend.Kind) async throws {
        let backend = try TestBackend.start(kind, pageSize: Self.pageSize)
        defer { backend.stop() }
        let store = onlineStore(backend)
        defer { store.close() }
        let expected = try serviceCount(backend, "BookingCollection")
        #expect(expected > 3 * Self.pageSize, "the sample must need several pages")

        let whole = try await store.get("BookingCollection?\(countOption(kind))")
        #expect(whole.nextLink == nil)
        #expect(try entities(whole).count == expected)
        #expect(try inlineCount(whole) == expected)
        #expect(!whole.text.contains("nextLink") && !whole.text.contains("__next"))

        // What the service itself sends is one page with a next link.
        let first = try await store.execute(ODataRequest(url: "BookingCollection", followsNextLinks: false))
        #expect(try entities(first).count == Self.pageSize)
        #expect(first.nextLink?.hasPrefix(backend.origin + "/") == true)
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func topAcrossAPageBoundaryAndSkipGiveTheServicesEntitiesAndNoMore(kind: TestBackend.Kind) async throws {
        let backend = try TestBackend.start(kind, pageSize: Self.pageSize)
        defer { backend.stop() }
        let store = onlineStore(backend)
        defer { store.close() }
        let order = "$orderby=carrid,connid,fldate,bookid"
        let all = try entities(await store.get("BookingCollection?\(order)"))
        let top = Self.pageSize + 7
        let topped = try entities(await store.get("BookingCollection?\(order)&$top=\(top)"))
        #expect(topped == Array(all.prefix(top)))
        let skipped = try entities(await store.get("BookingCollection?\(order)&$skip=5&$top=\(2 * Self.pageSize + 1)"))
        #expect(skipped == Array(all.dropFirst(5).prefix(2 * Self.pageSize + 1)))
        let rest = try entities(await store.get("BookingCollection?\(order)&$skip=\(all.count - 3)"))
        #expect(rest == Array(all.suffix(3)))
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func pageAtATimeReachesTheSameEntitiesAsTheWholeAnswer(kind: TestBackend.Kind) async throws {
        let backend = try TestBackend.start(kind, pageSize: Self.pageSize)
        defer { backend.stop() }
        let store = onlineStore(backend)
        defer { store.close() }
        let url = "TravelagencyCollection?$orderby=agencynum"
        let whole = try entities(await store.get(url))
        var gathered: [JSONValue] = []
        var pages = 0
        var request = ODataRequest(url: url, followsNextLinks: false)
        while true {
            let page = try await store.execute(request)
            pages += 1
            let found = try entities(page)
            #expect(found.count <= Self.pageSize)
            gathered += found
            guard let next = ODataRequest.page(after: page) else { break }
            request = next
        }
        #expect(pages == (whole.count + Self.pageSize - 1) / Self.pageSize && pages > 1)
        #expect(gathered == whole)
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func mixedModeReadsAnUncoveredSetOnlineAndWhole(kind: TestBackend.Kind) async throws {
        let backend = try TestBackend.start(kind, pageSize: Self.pageSize)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        var options = ODataStore.Options(path: folder.file("mixed.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [FlightSample.usAgencies]
        let store = ODataStore.open(options)
        defer { store.close() }
        let route = try await store.perform(.route(url: "BookingCollection"))
        #expect(route.destination == .online && route.reason.contains("no defining request covers BookingCollection"))
        #expect(try entities(await store.get("BookingCollection")).count == serviceCount(backend, "BookingCollection"))
        // A next link handed back goes online too, even in mixed mode.
        let first = try await store.execute(ODataRequest(url: "BookingCollection", followsNextLinks: false))
        let next = try #require(ODataRequest.page(after: first))
        #expect(try await store.perform(.route(url: next.url)).destination == .online)
        #expect(try entities(await store.execute(next)).count == Self.pageSize)
    }

    @Test func moreThanTheMaximumPagesOrBytesIsAClearErrorNotACut() async throws {
        let backend = try TestBackend.start(.v4, pageSize: Self.pageSize)
        defer { backend.stop() }
        let fewPages = onlineStore(backend) { $0.maximumPages = 3 }
        defer { fewPages.close() }
        let pages = await #expect(throws: ODataError.self) { try await fewPages.get("BookingCollection") }
        #expect(pages?.code == .network && pages?.message.contains("more than 3 pages") == true, "\(String(describing: pages))")
        // Three pages are allowed: 60 entities come whole.
        #expect(try entities(await fewPages.get("BookingCollection?$top=60")).count == 60)

        let fewBytes = onlineStore(backend) { $0.maximumResponseSize = 40_000 }
        defer { fewBytes.close() }
        let bytes = await #expect(throws: ODataError.self) { try await fewBytes.get("BookingCollection") }
        #expect(bytes?.code == .network && bytes?.message.contains("larger than 40000 bytes together") == true,
                "\(String(describing: bytes))")
    }

    @Test func anAbsoluteURLOffTheServicesOriginIsRefusedBeforeAnythingIsSent() async throws {
        let backend = try TestBackend.start(.v4, pageSize: Self.pageSize)
        defer { backend.stop() }
        let store = onlineStore(backend)
        defer { store.close() }
        let error = await #expect(throws: ODataError.self) {
            try await store.execute(ODataRequest(url: "http://127.0.0.1:9/BookingCollection?$skiptoken=20", followsNextLinks: false))
        }
        #expect(error?.code == .network && error?.message.contains("leaves the service's origin") == true, "\(String(describing: error))")
    }
}
