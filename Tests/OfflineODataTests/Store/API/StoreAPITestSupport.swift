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
final class EventRecorder: @unchecked Sendable {
    /// Guards `events` and wakes a waiter at each event.
    private let state = ConditionLock()
    private var events: [StoreEvent] = []

    func record(_ event: StoreEvent) {
        state.withLock {
            events.append(event)
            state.broadcast()
        }
    }

    var all: [StoreEvent] { state.withLock { events } }

    var changeEvents: [Set<String>] {
        all.compactMap { if case .entitySetsChanged(let sets) = $0 { sets } else { nil } }
    }

    func count(where predicate: (StoreEvent) -> Bool) -> Int { all.filter(predicate).count }

    /// Waits (up to `seconds`) until `predicate` holds for the recorded events.
    /// Woken by each event, so it returns as soon as the predicate holds. The predicate runs
    /// outside the lock (it may read the recorder or the store).
    func wait(seconds: Double = 30, until predicate: ([StoreEvent]) -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while true {
            let seen = all
            if predicate(seen) { return true }
            let more = state.withLock { () -> Bool in
                while events.count == seen.count && monotonicSeconds() < deadline { state.wait(until: deadline) }
                return events.count > seen.count
            }
            if !more { return predicate(all) }
        }
    }
}

/// Counts how often each request completed, to prove "exactly once".
final class CompletionLedger: @unchecked Sendable {
    /// Guards `results` and wakes a waiter at each completion.
    private let state = ConditionLock()
    private var results: [Int: [Result<StoreResponse, ODataError>]] = [:]

    func record(_ id: Int, _ result: Result<StoreResponse, ODataError>) {
        state.withLock {
            results[id, default: []].append(result)
            state.broadcast()
        }
    }

    var snapshot: [Int: [Result<StoreResponse, ODataError>]] { state.withLock { results } }

    /// Waits (up to `seconds`) until `count` requests completed at least once.
    /// Woken by each completion, so it returns as soon as the count is reached.
    func wait(for count: Int, seconds: Double = 30) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return state.withLock {
            while results.count < count && monotonicSeconds() < deadline { state.wait(until: deadline) }
            return results.count >= count
        }
    }
}

/// A one-time event between threads: ``wait(seconds:)`` returns as soon as ``signal()`` was called.
final class Signal: @unchecked Sendable {
    private let state = ConditionLock()
    /// Guarded by `state`.
    private var isSet = false

    func signal() {
        state.withLock {
            isSet = true
            state.broadcast()
        }
    }

    /// True once signalled; false when `seconds` passed first.
    func wait(seconds: Double = 30) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return state.withLock {
            while !isSet && monotonicSeconds() < deadline { state.wait(until: deadline) }
            return isSet
        }
    }
}

/// Waits (up to `seconds`) until every event `store` posted before this call has been delivered
/// to its subscribers: a call queued on the event hub behind them runs only after them (merged
/// change events included), so when it has run they are in. The positive witness for "the events
/// before X are all delivered", in place of sleeping.
func eventsDelivered(by store: ODataStore, seconds: Double = 30) -> Bool {
    let delivered = Signal()
    store.eventHub.run { delivered.signal() }
    return delivered.wait(seconds: seconds)
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
