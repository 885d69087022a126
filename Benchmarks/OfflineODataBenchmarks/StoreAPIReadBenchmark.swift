import CSQLite
@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read-api PATH`: the read of `read (a)` through the store API from Swift, on a 100,000-entity
/// store the engine makes at PATH (``makeEngineStore(path:count:)``) and keeps, so that `Benchmarks/c/read_api.c` can time the same read
/// through the C API in the same `make bench` run. Prints `read-api swift median-ns: N`.
func storeAPIReadBenchmark(_ arguments: [String]) throws {
    guard let path = arguments.first else { throw BenchmarkError("usage: read-api STORE_PATH") }
    removeDatabase(path)
    // Made by the engine, as a user's store is: no index or statistics added by hand. Without a
    // service root: the store was loaded, not downloaded, and opening a store with a service that
    // never downloaded would download first (here from no service), from Swift and from C alike.
    try makeEngineStore(path: path, count: 100_000, serviceRoot: nil).close()

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
