#if canImport(Glibc)
import Glibc
#endif

/// `swift run -c release offline-odata-benchmarks [NAME...]`: runs the engine's Swift benchmarks.
///
/// Each benchmark is a function in its own file, registered here by name. With no names, all run.
let benchmarks: [(name: String, run: () throws -> Void)] = [
    ("filter-parse", filterParseBenchmark),
    ("json", jsonBenchmark),
    ("metadata", metadataBenchmark),
    ("ingest", ingestBenchmark),
    ("filter-bind", filterBindBenchmark),
    ("read", readBenchmark),
    ("write", writeBenchmark),
    ("live", liveQueryBenchmark),
]

let selected = Array(CommandLine.arguments.dropFirst())
/// Steps that take arguments and run alone (other programs of `make bench` use them).
let steps: [String: ([String]) throws -> Void] = [
    "read-api": storeAPIReadBenchmark, "queue-writes": queueWrites, "filter-bind-loop": filterBindLoop,
    "metadata-loop": metadataLoop, "metadata-variants": metadataVariants, "read-scale": readScaleBenchmark, "read-loop": readLoop,
    "read-navigation": readNavigationBenchmark, "service-check": serviceCheckBenchmark,
    "read-scale-stores": readScaleStores,
]
if let name = selected.first, let step = steps[name] {
    do {
        try step(Array(selected.dropFirst()))
    } catch {
        print("\(name): failed: \(error)")
        exit(1)
    }
    exit(0)
}
for benchmark in benchmarks where selected.isEmpty || selected.contains(benchmark.name) {
    do {
        try benchmark.run()
    } catch {
        print("\(benchmark.name): failed: \(error)")
    }
}
