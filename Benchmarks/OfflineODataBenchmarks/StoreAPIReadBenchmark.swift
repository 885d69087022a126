import CSQLite
import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read-api PATH`: the read of `read (a)` through the store API from Swift, on a 100,000-entity
/// store it makes at PATH and keeps, so that `Benchmarks/c/read_api.c` can time the same read
/// through the C API in the same `make bench` run. Prints `read-api swift median-ns: N`.
func storeAPIReadBenchmark(_ arguments: [String]) throws {
    guard let path = arguments.first else { throw BenchmarkError("usage: read-api STORE_PATH") }
    removeDatabase(path)
    let made = try OfflineStore.create(path: path, metadata: benchmarkMetadata, serviceRoot: "http://localhost/service/")
    made.close()
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
    try insertAgencies(db, count: 100_000)
    sqlite3_close_v2(db)

    var options = ODataStore.Options(path: path)
    options.mode = .offline
    let store = ODataStore.open(options)
    defer { store.close() }
    try store.waitUntilOpen()
    let request = ODataRequest(url: "Agencies?$filter=City eq 'City7'&$top=20")
    var sink = 0
    let median = try Harness.median(samples: 21, iterations: 2_000) {
        for _ in 0..<2_000 { sink &+= try store.executeAndWait(request).body.count }
    }
    Harness.report("read-api: $top=20 through ODataStore.executeAndWait (Swift)", value: median / 1000, unit: "µs")
    print("read-api swift median-ns: \(Int(median))")
    if sink == 42 { print("") }
}
