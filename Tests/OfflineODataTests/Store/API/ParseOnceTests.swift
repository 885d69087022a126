import Testing
@_spi(Tool) @testable import OfflineOData

/// A request is understood once (issue 22): its URL is parsed and bound one time on its way from
/// the store API to the answer, and routing, lane and read-or-write come from that one resolution.
/// Counted with ``ParseBindCounter``: parses of URLs holding a marker, binds against the store's
/// own model, so tests running beside these do not count.
@Suite struct ParseOnceTests {
    /// Opens an offline store of the flight sample and counts parses of URLs holding `marker` and
    /// binds against the store's model while `body` runs.
    /// With `mixed`, the store also has a service (one that is never asked: every request here
    /// is on a covered set), so the router decides between the two.
    func counting(_ marker: String, definingRequests: [DefiningRequest]? = nil, mixed: Bool = false,
                  _ body: (ODataStore) throws -> Void) throws -> (parses: Int, binds: Int) {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        if let definingRequests { options.definingRequests = definingRequests }
        if mixed {
            options.serviceRoot = "http://127.0.0.1:9/service/"
            options.downloadsOnFirstOpen = false
        }
        let store = ODataStore.open(options)
        defer { store.close() }
        try store.waitUntilOpen()
        let model = try store.performAndWait(.metadata)
        try store.performAndWait(.request(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                       body: agencyBody("PO000001"))))
        ParseBindCounter.watch(marker: marker, model: model)
        defer { ParseBindCounter.stopWatching(marker: marker, model: model) }
        try body(store)
        return (ParseBindCounter.parses(containing: marker), ParseBindCounter.binds(against: model))
    }

    @Test func aReadThroughTheStoreIsOneParseAndOneBind() throws {
        let url = "TravelagencyCollection?$filter=city eq 'parse-once-read'"
        let blocking = try counting("parse-once-read") { store in
            let answer = try store.executeAndWait(ODataRequest(url: url))
            #expect(answer.status == 200)
        }
        #expect(blocking.parses == 1 && blocking.binds == 1, "executeAndWait: \(blocking)")
        let queued = try counting("parse-once-read") { store in
            let answer = try store.performAndWait(.request(ODataRequest(url: url)))
            #expect(answer.status == 200)
        }
        #expect(queued.parses == 1 && queued.binds == 1, "execute: \(queued)")
        // Routed between the offline store and the service: the router reads the resolution.
        let routed = try counting("parse-once-read", mixed: true) { store in
            let answer = try store.performAndWait(.request(ODataRequest(url: url)))
            #expect(answer.status == 200)
        }
        #expect(routed.parses == 1 && routed.binds == 1, "mixed: \(routed)")
    }

    /// The lean read path (issue 23): a read that repeats keeps its resolution, so the same URL read
    /// again is neither parsed nor bound, and answers the same.
    @Test func aRepeatedReadIsParsedAndBoundOnce() throws {
        let url = "TravelagencyCollection?$filter=city eq 'parse-once-again'"
        var answers: [[UInt8]] = []
        let counted = try counting("parse-once-again") { store in
            for _ in 0..<3 { answers.append(try store.executeAndWait(ODataRequest(url: url)).body) }
            answers.append(try store.performAndWait(.request(ODataRequest(url: url))).body)
        }
        #expect(counted.parses == 1 && counted.binds == 1, "four reads: \(counted)")
        #expect(Set(answers).count == 1)
        // A URL that does not bind is not kept: each read reports its error afresh.
        let refused = try counting("parse-once-refused") { store in
            for _ in 0..<2 {
                #expect(throws: ODataError.self) { try store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$filter=nope eq 'parse-once-refused'")) }
            }
        }
        #expect(refused.parses == 2, "\(refused)")
    }

    @Test func anOfflineWriteIsOneParseAndOneBind() throws {
        let update = try counting("PO000001", mixed: true) { store in
            let answer = try store.performAndWait(.request(ODataRequest(method: "PATCH", url: "TravelagencyCollection('PO000001')",
                                                                        body: Array(#"{"city":"Rome"}"#.utf8))))
            #expect(answer.status == 204)
        }
        #expect(update.parses == 1 && update.binds == 1, "PATCH: \(update)")
        let delete = try counting("PO000001") { store in
            let answer = try store.performAndWait(.request(ODataRequest(method: "DELETE", url: "TravelagencyCollection('PO000001')")))
            #expect(answer.status == 204)
        }
        #expect(delete.parses == 1 && delete.binds == 1, "DELETE: \(delete)")
        // A create's URL was resolved by the create before counting began: it is not bound again.
        let create = try counting("PO000002") { store in
            let answer = try store.performAndWait(.request(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                                        body: agencyBody("PO000002"))))
            #expect(answer.status == 201)
        }
        #expect(create.binds <= 1, "POST: \(create)")
    }

    @Test func explainWithKDefiningRequestsBindsAtMostOnePlusKTimes() throws {
        let defining = [
            DefiningRequest(name: "US", url: "TravelagencyCollection?$filter=country eq 'US'"),
            DefiningRequest(name: "DE", url: "TravelagencyCollection?$filter=country eq 'DE'"),
            DefiningRequest(name: "Bookings", url: "BookingCollection"),
        ]
        let counted = try counting("parse-once-explain", definingRequests: defining) { store in
            let explanation = try store.performAndWait(.explain(url: "TravelagencyCollection?$filter=country eq 'US' and city eq 'parse-once-explain'"))
            #expect(explanation.insideDefiningRequests == ["US"])
        }
        #expect(counted.parses == 1, "the read's URL: \(counted)")
        #expect(counted.binds >= 1 && counted.binds <= 1 + defining.count, "binds: \(counted)")
    }

    @Test func routingAResolvedRequestParsesNothingMore() throws {
        let model = try MetadataReader.read(FlightSample.v4Metadata)
        let router = RequestRouter(mode: .mixed, model: model, dialect: .v4, definingRequests: [FlightSample.usAgencies],
                                   hasOfflineStore: true, hasOnlineStore: true)
        let resolver = RequestResolver(model: model, dialect: .v4, limits: LocalReader.defaultParserLimits)
        let resolved = resolver.resolve(method: .get, url: "TravelagencyCollection?$filter=city eq 'parse-once-route'")
        #expect(resolved.resource == .collection(entitySet: "TravelagencyCollection"))
        ParseBindCounter.watch(marker: "parse-once-route", model: model)
        defer { ParseBindCounter.stopWatching(marker: "parse-once-route", model: model) }
        #expect(router.route(resolved).destination == .offline)
        #expect(ParseBindCounter.parses(containing: "parse-once-route") == 0)
        #expect(ParseBindCounter.binds(against: model) == 0)
    }

    @Test func aMethodTheStoreDoesNotTakeIsRefusedAsMisuse() throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        try store.waitUntilOpen()
        #expect { try store.executeAndWait(ODataRequest(method: "HEAD", url: "TravelagencyCollection")) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .misuse && error.message.contains("'HEAD' is not a request method")
        }
        #expect(throws: ODataError.self) { try RequestMethod(parsing: "OPTIONS") }
        #expect(try RequestMethod(parsing: "patch") == .patch)
        #expect(try store.executeAndWait(ODataRequest(method: "get", url: "TravelagencyCollection")).status == 200)
    }

    @Test func aURLTheBinderRefusesIsStillClassifiedForRouting() throws {
        let model = try MetadataReader.read(FlightSample.v4Metadata)
        let resolver = RequestResolver(model: model, dialect: .v4, limits: LocalReader.defaultParserLimits)
        // `$skiptoken` is valid OData the offline binder does not take: the path still routes.
        let resolved = resolver.resolve(method: .get, url: "FlightCollection?$skiptoken=blue")
        #expect(resolved.resource == .collection(entitySet: "FlightCollection"))
        #expect(throws: ODataError.self) { try resolved.boundForOfflineStore() }
        let operation = resolver.resolve(method: .get, url: "GetAgencyDetails(agencynum='00000001')")
        #expect(operation.resource == .operation(OperationResource(kind: .functionImport, name: "GetAgencyDetails")))
        #expect { try operation.boundForOfflineStore() } throws: { error in
            (error as? ODataError)?.message.contains("does not run operations") == true
        }
    }
}
