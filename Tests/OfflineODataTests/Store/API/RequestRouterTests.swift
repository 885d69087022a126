import Testing
@_spi(Tool) @testable import OfflineOData

/// The mixed-mode router's rules (DESIGN.md §4.3), on the flight sample's model.
@Suite struct RequestRouterTests {
    static let model = try? MetadataReader.read(FlightSample.v4Metadata)

    func router(_ mode: WorkingMode = .mixed, defining: [DefiningRequest] = [FlightSample.usAgencies],
                offline: Bool = true, online: Bool = true) throws -> RequestRouter {
        let model = try #require(Self.model)
        return RequestRouter(mode: mode, model: model, dialect: .v4, definingRequests: defining,
                             hasOfflineStore: offline, hasOnlineStore: online)
    }

    @Test func aCoveredCollectionGoesOfflineWhateverItsFilter() throws {
        let router = try router()
        for url in ["TravelagencyCollection", "TravelagencyCollection?$filter=city eq 'Beijing'",
                    "TravelagencyCollection('00000001')", "TravelagencyCollection/$count"] {
            let route = router.route(method: "GET", url: url)
            #expect(route.destination == .offline, "\(url): \(route.reason)")
            #expect(route.coveringRequests == ["Agencies"])
        }
        #expect(router.route(method: "POST", url: "TravelagencyCollection").destination == .offline)
    }

    @Test func functionAndActionImportsGoOnlineEvenOnACoveredSet() throws {
        let router = try router()
        let function = router.route(method: "GET", url: "GetAgencyDetails(agencynum='00000001')")
        #expect(function.destination == .online)
        #expect(function.reason.contains("function import"))
        #expect(router.route(method: "POST", url: "UpdateAgencyPhoneNo").destination == .online)
    }

    @Test func anUncoveredCollectionGoesOnline() throws {
        let route = try router().route(method: "GET", url: "FlightCollection?$filter=price gt 100")
        #expect(route.destination == .online)
        #expect(route.reason == "no defining request covers FlightCollection")
    }

    @Test func setsBroughtByExpandAreCovered() throws {
        let router = try router(defining: [DefiningRequest(name: "AgenciesAndBookings",
                                                           url: "TravelagencyCollection?$expand=AgencyBookings")])
        #expect(router.route(method: "GET", url: "BookingCollection").destination == .offline)
        #expect(router.coveredEntitySets.keys.sorted() == ["BookingCollection", "TravelagencyCollection"])
    }

    @Test func withoutDefiningRequestsEverythingGoesOnline() throws {
        let route = try router(defining: []).route(method: "GET", url: "TravelagencyCollection")
        #expect(route.destination == .online)
        #expect(route.reason.contains("no defining requests"))
    }

    @Test func aSingleConfiguredStoreTakesEverything() throws {
        #expect(try router(online: false).route(method: "GET", url: "GetAgencyDetails(agencynum='1')").destination == .offline)
        #expect(try router(offline: false).route(method: "GET", url: "TravelagencyCollection").destination == .online)
    }

    @Test func workingModesOverrideTheRules() throws {
        #expect(try router(.online).route(method: "GET", url: "TravelagencyCollection").destination == .online)
        #expect(try router(.offline).route(method: "GET", url: "GetAgencyDetails(agencynum='1')").destination == .offline)
    }

    @Test func anUnknownPathGoesOfflineWhereItsErrorIsPrecise() throws {
        let route = try router().route(method: "GET", url: "NoSuchCollection")
        #expect(route.destination == .offline)
        #expect(route.reason.contains("does not know"))
    }
}
