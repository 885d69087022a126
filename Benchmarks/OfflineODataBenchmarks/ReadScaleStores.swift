import CSQLite
@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read-scale-stores N STORE PLAIN`: the stores of ``scaleReads(store:plain:count:automatic:)``
/// left on disk for `Benchmarks/c/read_vs_sqlite.c`, which times the same reads through the C API
/// against plain SQLite in one run: at STORE, N agencies with codes loaded by the engine (no
/// service root, as a loaded store has none, so the C API opens it without a first download),
/// with its automatic index on `Code` made the way the engine makes it (the shape read
/// ``LocalStore/automaticIndexThreshold`` times, then ``LocalStore/createAutomaticIndexes(threshold:)``);
/// at PLAIN, the plain-SQLite baseline (``makePlainDatabase(path:count:codes:)``).
func readScaleStores(_ arguments: [String]) throws {
    guard arguments.count == 3, let count = Int(String(arguments[0].filter { $0 != "_" })), count >= 1000 else {
        throw BenchmarkError("usage: read-scale-stores ENTITIES STORE PLAIN")
    }
    let store = try makeEngineStore(path: arguments[1], count: count, codes: true, serviceRoot: nil)
    defer { store.close() }
    let url = "Agencies?$filter=Code eq 'C\(count / 3 + 11)'"
    var sink = 0
    for _ in 0..<LocalStore.automaticIndexThreshold { sink &+= try store.execute(method: "GET", url: url).body.count }
    let made = try store.createAutomaticIndexes()
    guard made.contains(where: { $0.properties == ["Code"] }) else { throw BenchmarkError("no automatic index on Code was made") }
    let plain = try makePlainDatabase(path: arguments[2], count: count, codes: true)
    sqlite3_close_v2(plain)
    print("read-scale-stores: \(count) entities at \(arguments[1]) and \(arguments[2]) (\(sink) bytes read)")
}
