import CSQLite
@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `write`: local creates through the store (`LocalStore.write`: URL parse and bind, body
/// validation against the model, the insert and the queue append in one durable transaction),
/// on a file store in `/tmp`. Reports writes per second; budget 20,000/s.
///
/// Baseline: the same number of rows inserted into a plain SQLite table, each in its own
/// transaction, with the store's settings (WAL, `synchronous = FULL`): the floor of one durable
/// commit per write on this disk.
func writeBenchmark() throws {
    let count = 5_000
    let metadata = try readBenchmarkFile("Examples/FlightSample/metadata-v4.xml")
    let storePath = "/tmp/ood-write-benchmark-\(getpid()).store"
    let floorPath = "/tmp/ood-write-benchmark-\(getpid()).floor"
    defer { for path in [storePath, floorPath] { removeDatabase(path) } }
    let bodies = (0..<count).map { index in
        Array(#"{"agencynum":"\#(String(index))","name":"Agency \#(index)","city":"Rome","country":"IT","creditlimit":"1500.50"}"#.utf8)
    }

    let store = try Harness.median(samples: 5, warmup: 1, iterations: count) {
        removeDatabase(storePath)
        let store = try LocalStore.create(path: storePath, metadata: metadata)
        defer { store.close() }
        for body in bodies { _ = try store.write(method: "POST", url: "TravelagencyCollection", body: body) }
    }
    let floor = try Harness.median(samples: 5, warmup: 1, iterations: count) {
        removeDatabase(floorPath)
        var db: OpaquePointer?
        guard sqlite3_open(floorPath, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open the floor database") }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (k TEXT PRIMARY KEY, name TEXT, city TEXT, country TEXT, limit_ TEXT)", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2, 'Rome', 'IT', '1500.5')", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        for index in 0..<count {
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            sqlite3_reset(statement)
            sqlite3_bind_text(statement, 1, String(index), -1, nil)
            sqlite3_bind_text(statement, 2, "Agency \(index)", -1, nil)
            sqlite3_step(statement)
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
        }
    }
    let apiPath = "/tmp/ood-write-benchmark-\(getpid()).api.store"
    defer { removeDatabase(apiPath) }
    let grouped = try Harness.median(samples: 5, warmup: 1, iterations: count) {
        removeDatabase(apiPath)
        var options = ODataStore.Options(path: apiPath)
        options.metadata = metadata
        let store = ODataStore.open(options)
        defer { store.close() }
        try store.waitUntilOpen()
        let finished = CompletionCounter()
        for body in bodies {
            store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: body))) { finished.record($0) }
        }
        let failures = finished.wait(for: count)
        guard failures == 0 else { throw BenchmarkError("\(failures) of \(count) writes failed") }
    }
    Harness.report("write (durable local creates with the queue, one at a time)", value: 1e9 / store, unit: "writes/s",
                   baseline: ("durable plain inserts, one transaction each", 1e9 / floor), budget: "≥ 20,000 writes/s")
    Harness.report("write (the same through the store API, all issued at once: group commit)", value: 1e9 / grouped,
                   unit: "writes/s", baseline: ("durable plain inserts, one transaction each", 1e9 / floor),
                   budget: "≥ 20,000 writes/s")
    print("write: \(Harness.format(store / 1000)) µs per write one at a time, \(Harness.format(grouped / 1000)) µs grouped, "
          + "floor \(Harness.format(floor / 1000)) µs")
}

/// Counts completions from the store's threads and lets the benchmark wait for all of them.
final class CompletionCounter: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var done = 0
    private var failed = 0

    init() {
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&condition, nil)
    }

    func record(_ result: Result<StoreResponse, ODataError>) {
        pthread_mutex_lock(&lock)
        done += 1
        if case .failure = result { failed += 1 }
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&lock)
    }

    /// Waits until `count` completions came; returns how many failed.
    func wait(for count: Int) -> Int {
        pthread_mutex_lock(&lock)
        while done < count { pthread_cond_wait(&condition, &lock) }
        let failures = failed
        pthread_mutex_unlock(&lock)
        return failures
    }
}

/// A file of the repository, read from the current directory (benchmarks run from the root).
func readBenchmarkFile(_ path: String) throws -> String {
    guard let handle = fopen(path, "rb") else { throw BenchmarkError("cannot read \(path): run from the repository root") }
    defer { fclose(handle) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let read = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if read == 0 { break }
        bytes.append(contentsOf: buffer[0..<read])
    }
    return String(decoding: bytes, as: UTF8.self)
}
