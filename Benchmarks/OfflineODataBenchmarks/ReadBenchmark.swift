import CSQLite
import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read`: local reads through the whole engine path (URL text → parse → bind → translate →
/// SQLite → OData V4 JSON bytes) on a 1,000,000-entity table, each against its floor: the same SQL
/// through a prepared statement on a plain sqlite3 connection, with no OData work.
///
/// (a) `Agencies?$filter=City eq 'City7'&$top=20`, City indexed (budget ≤ 100 µs end to end);
/// (b) `Agencies?$filter=City eq 'City7'` returning 50,000 entities (each of 20 cities holds 50,000
///     rows), reported per row; the floor steps the statement and touches every column.
func readBenchmark() throws {
    let path = "/tmp/ood-read-benchmark-\(getpid()).sqlite"
    // OOD_KEEP_READ_DB=1 keeps the database for outside comparisons (Python's sqlite3, say).
    let keep = getenv("OOD_KEEP_READ_DB") != nil
    defer { if !keep { removeDatabase(path) } }
    let store = try OfflineStore.create(path: path, metadata: benchmarkMetadata, serviceRoot: "http://localhost/service/")
    defer { store.close() }
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
    defer { sqlite3_close_v2(db) }

    let generationStart = Harness.now()
    try insertAgencies(db, count: 1_000_000)
    try exec(db, "ANALYZE")
    print("read: generated 1,000,000 entities in \(Harness.format(Double(Harness.now() - generationStart) / 1e9)) s")

    let reader = LocalReader(model: store.model, schema: store.schema, dialect: .v4, serviceRoot: "http://localhost/service/")
    var sink = 0

    // (a) $top=20 on the indexed property.
    let topURL = "Agencies?$filter=City eq 'City7'&$top=20"
    let topSQL = try reader.translatedSQL(url: topURL)
    print("read: plan of (a): " + queryPlan(db, topSQL))
    let topFloor = try floor(db, topSQL, [.text("City7"), .integer(20)], iterations: 2_000) { sink &+= $0 }
    let topEngine = try Harness.median(samples: 21, iterations: 2_000) {
        for _ in 0..<2_000 { sink &+= try reader.read(url: topURL, in: store.file).body.count }
    }
    Harness.report("read (a): $top=20 filtered on an indexed property, URL → JSON", value: topEngine / 1000, unit: "µs",
                   baseline: ("same SQL, prepared, stepped", topFloor / 1000), budget: "≤ 100 µs")

    // (b) 50,000 entities as JSON.
    let allURL = "Agencies?$filter=City eq 'City7'"
    let allSQL = try reader.translatedSQL(url: allURL)
    let rows = 50_000.0
    let allFloor = try floor(db, allSQL, [.text("City7")], iterations: 1, samples: 7) { sink &+= $0 }
    var bytes = 0
    let allEngine = try Harness.median(samples: 7) {
        let body = try reader.read(url: allURL, in: store.file).body
        bytes = body.count
        sink &+= body.count
    }
    Harness.report("read (b): 50,000 entities as JSON", value: allEngine / 1e6, unit: "ms",
                   baseline: ("same SQL, stepped, every column touched", allFloor / 1e6))
    if keep { print("read: database kept at \(path); (b) SQL: \(allSQL)") }
    print("read (b): \(Harness.format(allEngine / rows / 1000)) µs/row (floor \(Harness.format(allFloor / rows / 1000)) µs/row), \(bytes) bytes of JSON")
    if sink == 42 { print("") }
}

/// Fills the benchmark model's `Agencies` with `count` rows (20 cities, `City` indexed) in one transaction.
func insertAgencies(_ db: OpaquePointer, count: Int) throws {
    try exec(db, "BEGIN")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO \"es/Agencies\" (\"ID\", \"Name\", \"City\", \"Rating\", \"Revenue\", \"Founded\") VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &insert, nil)
    guard let insert else { throw BenchmarkError("cannot prepare the insert") }
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    for id in 0..<count {
        sqlite3_reset(insert)
        sqlite3_bind_int64(insert, 1, Int64(id))
        sqlite3_bind_text(insert, 2, "Agency \(id)", -1, transient)
        sqlite3_bind_text(insert, 3, "City\(id % 20)", -1, transient)
        sqlite3_bind_int64(insert, 4, Int64(id % 5))
        sqlite3_bind_text(insert, 5, "\(id % 1000).\(id % 100)", -1, transient)
        sqlite3_bind_text(insert, 6, "20\(10 + id % 10)-0\(1 + id % 9)-1\(id % 9)T12:34:56.0000000Z", -1, transient)
        guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchmarkError("insert failed") }
    }
    sqlite3_finalize(insert)
    try exec(db, "CREATE INDEX \"es/Agencies/City\" ON \"es/Agencies\" (\"City\")")
    try exec(db, "COMMIT")
}

enum FloorParameter {
    case text(String)
    case integer(Int64)
}

func exec(_ db: OpaquePointer, _ sql: String) throws {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
}

private func queryPlan(_ db: OpaquePointer, _ sql: String) -> String {
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    var lines: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        if let text = sqlite3_column_text(statement, 3) { lines.append(String(cString: text)) }
    }
    return lines.joined(separator: "; ")
}

/// The floor: one prepared statement, rebound and stepped, each column read by its type.
private func floor(_ db: OpaquePointer, _ sql: String, _ parameters: [FloorParameter], iterations: Int, samples: Int = 21,
                   _ sink: (Int) -> Void) throws -> Double {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    return Harness.median(samples: samples, iterations: iterations) {
        var touched = 0
        for _ in 0..<iterations {
            sqlite3_reset(statement)
            for (index, parameter) in parameters.enumerated() {
                switch parameter {
                case .text(let text): sqlite3_bind_text(statement, Int32(index + 1), text, -1, transient)
                case .integer(let value): sqlite3_bind_int64(statement, Int32(index + 1), value)
                }
            }
            let columns = sqlite3_column_count(statement)
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<columns {
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: touched &+= Int(truncatingIfNeeded: sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: touched &+= Int(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT, SQLITE_BLOB: touched &+= Int(sqlite3_column_bytes(statement, column))
                    default: break
                    }
                }
            }
        }
        sink(touched)
    }
}
