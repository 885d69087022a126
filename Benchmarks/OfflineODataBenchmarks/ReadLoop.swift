@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read-loop STORE ENTITIES SECONDS URL...`: each URL read through ``ODataStore/executeAndWait(_:)``
/// for about SECONDS, printing its median, for `perf record` and `valgrind --tool=callgrind` of
/// the read path alone. The store at STORE is made by the engine (``makeEngineStore(path:count:)``)
/// only when no file is there, so repeated runs skip the load and profile only the reads.
func readLoop(_ arguments: [String]) throws {
    guard arguments.count >= 4, let count = Int(arguments[1]), let seconds = Double(arguments[2]) else {
        throw BenchmarkError("usage: read-loop STORE ENTITIES SECONDS URL...")
    }
    let path = arguments[0]
    if access(path, F_OK) != 0 { try makeEngineStore(path: path, count: count).close() }
    var options = ODataStore.Options(path: path)
    options.mode = .offline
    // Loaded, not downloaded: no service to ask.
    options.downloadsOnFirstOpen = false
    let store = ODataStore.open(options)
    defer { store.close() }
    try store.waitUntilOpen()
    var sink = 0
    for url in arguments.dropFirst(3) {
        let request = ODataRequest(url: url)
        let end = Harness.now() + UInt64(seconds * 1e9)
        var samples: [Double] = []
        while Harness.now() < end {
            let start = Harness.now()
            for _ in 0..<1_000 { sink &+= try store.executeAndWait(request).body.count }
            samples.append(Double(Harness.now() - start) / 1_000)
        }
        samples.sort()
        let median = samples.isEmpty ? 0 : samples[samples.count / 2]
        print("read-loop \(url): \(Harness.format(median / 1000)) µs (median of \(samples.count) rounds of 1,000)")
    }
    if sink == 42 { print("") }
}
