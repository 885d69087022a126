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
]

let selected = Array(CommandLine.arguments.dropFirst())
if selected.first == "read-api" {
    do {
        try storeAPIReadBenchmark(Array(selected.dropFirst()))
    } catch {
        print("read-api: failed: \(error)")
        exit(1)
    }
    exit(0)
}
if selected.first == "queue-writes" {
    do {
        try queueWrites(Array(selected.dropFirst()))
    } catch {
        print("queue-writes: failed: \(error)")
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
