import CSQLite
import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `write`: local creates through the store (`OfflineStore.write`: URL parse and bind, body
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
        let store = try OfflineStore.create(path: storePath, metadata: metadata)
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
    Harness.report("write (durable local creates with the queue)", value: 1e9 / store, unit: "writes/s",
                   baseline: ("durable plain inserts, one transaction each", 1e9 / floor), budget: "≥ 20,000 writes/s")
    print("write: \(Harness.format(store / 1000)) µs per write, floor \(Harness.format(floor / 1000)) µs")
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
