#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Generated watchers, writes, downloads and uploads: at every quiescent point each watcher's last
/// answer is what a fresh read of its request answers.
@Suite struct LiveQueryRandomTests {
    /// A small deterministic generator (SplitMix64), so a failing seed can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let cities = ["Boston", "Oslo", "Rome", "Lima"]
    static let keys = (1...12).map { agencyKey($0) }

    /// The reads watched: collections with filters, order, paging and counts, entities, properties,
    /// `/$count`, expands and lambdas over the flight sample.
    static func requests(_ random: inout Generator) -> [String] {
        var made: [String] = []
        for _ in 0..<14 {
            let city = random.pick(cities)
            let key = random.pick(keys)
            made.append(random.pick([
                "TravelagencyCollection?$filter=city eq '\(city)'&$orderby=agencynum",
                "TravelagencyCollection?$orderby=name desc,agencynum&$top=\(1 + random.below(4))",
                "TravelagencyCollection?$count=true&$filter=city ne '\(city)'",
                "TravelagencyCollection/$count",
                "TravelagencyCollection('\(key)')",
                "TravelagencyCollection('\(key)')/city",
                "TravelagencyCollection?$filter=contains(name,'\(random.below(10))')",
                "CarrierCollection?$expand=CarrierFlights($orderby=connid)&$orderby=carrid",
                "CarrierCollection?$filter=CarrierFlights/any(f: f/price gt \(random.below(300)))",
                "FlightCollection?$filter=carrid eq 'C\(random.below(3))'&$orderby=connid",
            ]))
        }
        return made
    }

    /// A service that takes creates as sent, changes and deletes, and downloads whatever agencies
    /// `catalogue` holds now.
    final class Service: @unchecked Sendable {
        let catalogue = Protected<[(String, String)]>([])

        func answer(_ request: ReceivedRequest) -> TestHTTPBehaviour {
            let json = [("Content-Type", "application/json")]
            if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "{}", headers: [("X-CSRF-Token", "t1")]) }
            if request.target.hasSuffix("/$metadata") {
                return .text(200, FlightSample.v4Metadata, headers: [("Content-Type", "application/xml")])
            }
            switch request.method {
            case "POST":
                // Every create of this test gives its key: the service takes the entity as sent.
                return .respond(status: 201, headers: json, body: request.body)
            case "PATCH", "PUT", "DELETE":
                return .respond(status: 204, headers: [], body: [])
            default:
                guard request.target.contains("TravelagencyCollection") else { return .text(200, #"{"value":[]}"#, headers: json) }
                let agencies = catalogue.withLock { $0 }.map {
                    #"{"agencynum":"\#($0.0)","name":"Agency \#($0.0)","city":"\#($0.1)","country":"US"}"#
                }
                return .text(200, #"{"value":["# + agencies.joined(separator: ",") + "]}", headers: json)
            }
        }
    }

    @Test func everyWatcherEndsAtAFreshReadAfterEveryRound() throws {
        let seed = UInt64(getenv("OOD_LIVE_SEED").flatMap { UInt64(String(cString: $0)) } ?? 36)
        let rounds = getenv("OOD_LIVE_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 200
        var random = Generator(state: seed)
        let service = Service()
        let server = try TestHTTPServer { service.answer($0) }
        defer { server.stop() }
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.serviceRoot = server.baseURL + "/svc/"
        options.downloadsOnFirstOpen = false
        options.definingRequests += [DefiningRequest(name: "Carriers", url: "CarrierCollection"),
                                     DefiningRequest(name: "Flights", url: "FlightCollection")]
        let store = ODataStore.open(options)
        defer { store.close() }
        let local = try #require(try store.dispatcherOnceOpen().offline)

        let urls = Self.requests(&random)
        let logs = urls.map { _ in AnswerLog() }
        var queries: [LiveQuery] = []
        for (index, url) in urls.enumerated() {
            let log = logs[index]
            queries.append(try store.watch(url, interval: random.pick([0, 0.002, 0.01])) { log.record($0) })
        }
        var kinds: [String: Int] = [:]
        for round in 0..<rounds {
            for _ in 0..<(1 + random.below(4)) {
                let key = random.pick(Self.keys)
                let city = random.pick(Self.cities)
                let kind = random.below(100)
                let name: String
                switch kind {
                case 0..<25:
                    name = "create"
                    _ = try? store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                               body: agencyBody(key, city: city)))
                case 25..<45:
                    name = "update"
                    _ = try? store.executeAndWait(ODataRequest(method: "PATCH", url: "TravelagencyCollection('\(key)')",
                                                               body: Array(#"{"city":"\#(city)","name":"N\#(random.below(10))"}"#.utf8)))
                case 45..<55:
                    name = "delete"
                    _ = try? store.executeAndWait(ODataRequest(method: "DELETE", url: "TravelagencyCollection('\(key)')"))
                case 55..<65:
                    name = "carrier or flight"
                    let carrier = "C\(random.below(3))"
                    _ = try? store.executeAndWait(ODataRequest(method: "POST", url: "CarrierCollection",
                                                               body: Array(#"{"carrid":"\#(carrier)","carrname":"\#(city)"}"#.utf8)))
                    _ = try? store.executeAndWait(ODataRequest(method: "POST", url: "FlightCollection", body: Array(
                        #"{"carrid":"\#(carrier)","connid":"\#(1000 + random.below(5))","fldate":"2026-01-0\#(1 + random.below(5))","price":\#(random.below(400))}"#.utf8)))
                case 65..<70:
                    name = "rolled back"
                    try? local.file.withConnection { db throws(ODataError) in
                        try db.transaction { () throws(ODataError) in
                            try db.execute(#"UPDATE "es/TravelagencyCollection" SET city = 'Nowhere'"#)
                            throw ODataError(.aborted, "on purpose")
                        }
                    }
                case 70..<73:
                    name = "delete every row"
                    try local.file.withConnection { db throws(ODataError) in try db.execute(#"DELETE FROM "es/TravelagencyCollection""#) }
                case 73..<78:
                    name = "undo"
                    _ = try? store.performAndWait(.undoPendingChanges(url: "TravelagencyCollection('\(key)')"))
                case 78..<88:
                    name = "download"
                    service.catalogue.withLock { catalogue in
                        catalogue = Self.keys.filter { _ in random.below(3) == 0 }.map { ($0, random.pick(Self.cities)) }
                    }
                    _ = try? store.performAndWait(.download(DownloadOptions(full: true)))
                default:
                    name = "upload"
                    _ = try? store.performAndWait(.upload(UploadOptions()))
                }
                kinds[name, default: 0] += 1
            }
            // A quiescent point: every commit so far is published and every marked watcher ran.
            #expect(store.liveQueriesSettle(), "round \(round), seed \(seed)")
            for (index, url) in urls.enumerated() {
                let fresh: Result<StoreResponse, ODataError>
                do throws(ODataError) {
                    fresh = .success(try store.executeAndWait(ODataRequest(url: url)))
                } catch {
                    fresh = .failure(error)
                }
                let last = logs[index].all.last
                func text(_ answer: Result<StoreResponse, ODataError>?) -> String {
                    switch answer {
                    case .success(let response)?: response.text
                    case .failure(let error)?: "error \(error.code): \(error.message)"
                    case nil: "nothing"
                    }
                }
                let same = last == fresh
                #expect(same, "round \(round), seed \(seed), watcher \(index): \(url)\nlast: \(text(last))\nfresh: \(text(fresh))")
                if !same { return }
            }
        }
        // Every kind of change ran, and the reads did not run at every commit.
        #expect(kinds.count == 9, "\(kinds)")
        let runs = queries.map(\.runCount).reduce(0, +), deliveries = queries.map(\.deliveryCount).reduce(0, +)
        #expect(deliveries <= runs)
        print("live queries, \(rounds) rounds, seed \(seed): \(kinds.values.reduce(0, +)) changes, \(runs) runs, \(deliveries) deliveries, "
              + "commits \(store.liveQueries.current?.commitCounts ?? (0, 0))")
    }
}
