@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `live`: live queries (issue 36) on a file store in `/tmp`.
///
/// - Commit-to-delivery latency, median and p95, with 1, 100 and 1,000 watchers of the written
///   set's count: from the write's call to the last watcher's new answer. Baseline: the write alone.
/// - A local write with 1,000 watchers of another set against none (target: within 10%).
/// - A burst of 10,000 single-row writes issued at once: the deliveries of one watcher, against the
///   bound `1 + duration / interval`, and how much the peak resident memory grew meanwhile.
func liveQueryBenchmark() throws {
    let metadata = try readBenchmarkFile("Examples/FlightSample/metadata-v4.xml")
    let path = "/tmp/ood-live-benchmark-\(getpid()).store"
    defer { removeDatabase(path) }
    func openStore() throws -> ODataStore {
        removeDatabase(path)
        var options = ODataStore.Options(path: path)
        options.metadata = metadata
        let store = ODataStore.open(options)
        try store.waitUntilOpen()
        return store
    }
    var key = 0
    func write(_ store: ODataStore, set: String = "TravelagencyCollection") throws {
        key += 1
        let body = set == "TravelagencyCollection"
            ? #"{"agencynum":"\#(key)","name":"Agency","city":"Rome","country":"IT"}"#
            : #"{"carrid":"\#(key % 1000)","carrname":"C\#(key)"}"#
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: set, body: Array(body.utf8)))
    }

    // Latency.
    for watchers in [1, 100, 1_000] {
        let store = try openStore()
        defer { store.close() }
        let arrivals = ArrivalClock()
        var queries: [LiveQuery] = []
        for _ in 0..<watchers {
            queries.append(try store.watch("TravelagencyCollection/$count", interval: 0) { _ in arrivals.arrived() })
        }
        arrivals.wait(for: watchers)
        let rounds = watchers == 1_000 ? 20 : 50
        var latencies: [Double] = [], writes: [Double] = []
        for _ in 0..<rounds {
            let expected = arrivals.count + watchers
            let start = Harness.now()
            try write(store)
            writes.append(Double(Harness.now() - start))
            arrivals.wait(for: expected)
            latencies.append(Double(arrivals.last - start))
        }
        for query in queries { query.cancel() }
        latencies.sort()
        writes.sort()
        let p95 = latencies[min(latencies.count - 1, latencies.count * 95 / 100)]
        Harness.report("live: write to the last of \(watchers) deliveries, median", value: latencies[latencies.count / 2] / 1e6,
                       unit: "ms", baseline: ("the write alone", writes[writes.count / 2] / 1e6))
        Harness.report("live: write to the last of \(watchers) deliveries, p95", value: p95 / 1e6, unit: "ms")
    }

    // A write's cost with 1,000 watchers of an unrelated set: the writes alone are timed, once
    // every watcher delivered its first answer (setting up 1,000 watches is not a write's cost),
    // in alternating samples, medians.
    let count = 1_000
    func timedWrites(watchers: Int) throws -> Double {
        let store = try openStore()
        defer { store.close() }
        let arrivals = ArrivalClock()
        var queries: [LiveQuery] = []
        for index in 0..<watchers {
            queries.append(try store.watch("CarrierCollection?$filter=carrid eq '\(index)'") { _ in arrivals.arrived() })
        }
        arrivals.wait(for: watchers)
        let start = Harness.now()
        for _ in 0..<count { try write(store) }
        let elapsed = Double(Harness.now() - start) / Double(count)
        for query in queries { query.cancel() }
        return elapsed
    }
    var none: [Double] = [], unrelated: [Double] = []
    _ = try timedWrites(watchers: 0)
    for _ in 0..<5 {
        none.append(try timedWrites(watchers: 0))
        unrelated.append(try timedWrites(watchers: 1_000))
    }
    none.sort()
    unrelated.sort()
    Harness.report("live: a local write with 1,000 watchers of another set", value: unrelated[2] / 1000, unit: "µs",
                   baseline: ("no watcher", none[2] / 1000), budget: "ratio ≤ 1.10")

    // A burst.
    let store = try openStore()
    defer { store.close() }
    let arrivals = ArrivalClock()
    let counted = Protected("")
    let query = try store.watch("TravelagencyCollection/$count") { answer in
        if case .success(let response) = answer { counted.withLock { $0 = response.text } }
        arrivals.arrived()
    }
    arrivals.wait(for: 1)
    let burst = 10_000
    let peakBefore = peakResidentKiB()
    let finished = CompletionCounter()
    let start = Harness.now()
    for index in 0..<burst {
        let body = #"{"agencynum":"B\#(index)","name":"Burst","city":"Rome","country":"IT"}"#
        store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: Array(body.utf8)))) { finished.record($0) }
    }
    _ = finished.wait(for: burst)
    let seconds = Double(Harness.now() - start) / 1e9
    // The last answer is the final count: the watch ends at the latest state.
    while true {
        let seen = arrivals.count
        if counted.withLock({ $0 }) == String(burst) { break }
        arrivals.wait(for: seen + 1)
    }
    let bound = 1 + Int(seconds / ODataStore.defaultLiveQueryInterval) + 1
    Harness.report("live: deliveries of one watcher for a burst of \(burst) writes in \(Harness.format(seconds)) s",
                   value: Double(query.deliveryCount), unit: "deliveries",
                   budget: "≤ \(bound) (1 + duration / 30 ms); runs \(query.runCount)")
    // Bounded memory: the burst's answers are coalesced, not queued (the peak grows by the
    // 10,000 writes' own requests, not by one answer per commit).
    Harness.report("live: growth of the peak resident memory during the burst", value: Double(peakResidentKiB() - peakBefore) / 1024,
                   unit: "MiB")
    query.cancel()
}

/// The process's peak resident memory so far, in KiB (`getrusage`).
func peakResidentKiB() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss
}

/// Counts deliveries from the live-query thread and notes when the last one came.
final class ArrivalClock: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var arrivals = 0
    private var lastTime: UInt64 = 0

    init() {
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&condition, nil)
    }

    func arrived() {
        pthread_mutex_lock(&lock)
        arrivals += 1
        lastTime = Harness.now()
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&lock)
    }

    var count: Int {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return arrivals
    }

    var last: UInt64 {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return lastTime
    }

    func wait(for count: Int) {
        pthread_mutex_lock(&lock)
        while arrivals < count { pthread_cond_wait(&condition, &lock) }
        pthread_mutex_unlock(&lock)
    }
}
