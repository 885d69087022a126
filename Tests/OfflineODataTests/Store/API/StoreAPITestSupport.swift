#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// The bundled flight sample's `$metadata` documents (Examples/FlightSample/).
enum FlightSample {
    static let repositoryRoot: String = {
        var path = #filePath
        // .../<repo>/Tests/OfflineODataTests/Store/API/StoreAPITestSupport.swift -> .../<repo>
        for _ in 0..<5 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path
    }()

    static let v4Metadata = readFile(repositoryRoot + "/Examples/FlightSample/metadata-v4.xml")
        .map { String(decoding: $0, as: UTF8.self) } ?? ""
    static let v2Metadata = readFile(repositoryRoot + "/Examples/FlightSample/metadata-v2.xml")
        .map { String(decoding: $0, as: UTF8.self) } ?? ""

    static let usAgencies = DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'")
}

/// Collects a store's events from its event thread, for assertions on the test's thread.
final class EventRecorder: Sendable {
    private let events = Protected<[StoreEvent]>([])

    func record(_ event: StoreEvent) { events.withLock { $0.append(event) } }

    var all: [StoreEvent] { events.withLock { $0 } }

    var changeEvents: [Set<String>] {
        all.compactMap { if case .entitySetsChanged(let sets) = $0 { sets } else { nil } }
    }

    func count(where predicate: (StoreEvent) -> Bool) -> Int { all.filter(predicate).count }

    /// Waits (up to `seconds`) until `predicate` holds for the recorded events.
    func wait(seconds: Double = 30, until predicate: ([StoreEvent]) -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if predicate(all) { return true }
            usleep(5_000)
        }
        return predicate(all)
    }
}

/// Counts how often each request completed, to prove "exactly once".
final class CompletionLedger: Sendable {
    private let results = Protected<[Int: [Result<StoreResponse, ODataError>]]>([:])

    func record(_ id: Int, _ result: Result<StoreResponse, ODataError>) {
        results.withLock { $0[id, default: []].append(result) }
    }

    var snapshot: [Int: [Result<StoreResponse, ODataError>]] { results.withLock { $0 } }

    /// Waits (up to `seconds`) until `count` requests completed at least once.
    func wait(for count: Int, seconds: Double = 30) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if results.withLock({ $0.count }) >= count { return true }
            usleep(2_000)
        }
        return results.withLock { $0.count } >= count
    }
}

/// Makes an offline-only store file for the flight sample (V4) and returns its options.
func offlineFlightOptions(in folder: TemporaryFolder, name: String = "flights.store") -> ODataStore.Options {
    var options = ODataStore.Options(path: folder.file(name))
    options.metadata = FlightSample.v4Metadata
    options.definingRequests = [FlightSample.usAgencies]
    options.changeEventInterval = 0.05
    return options
}

/// An agency's JSON body with the given key.
func agencyBody(_ key: String, city: String = "Boston") -> [UInt8] {
    Array("{\"agencynum\":\"\(key)\",\"name\":\"Agency \(key)\",\"city\":\"\(city)\",\"country\":\"US\"}".utf8)
}

/// The number of entities in a V4 or V2 collection answer.
func entityCount(_ response: StoreResponse) throws -> Int {
    let document = try JSONValue.parse(response.body)
    if let value = document["value"]?.arrayValue { return value.count }
    if let results = document["d"]?["results"]?.arrayValue { return results.count }
    if let results = document["d"]?.arrayValue { return results.count }
    throw ODataError(.internalError, "not a collection answer: \(response.text.prefix(200))")
}
