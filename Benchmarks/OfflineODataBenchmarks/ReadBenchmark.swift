import CSQLite
@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `read`: local reads through the whole engine path (URL text → parse → bind → translate →
/// SQLite → OData V4 JSON bytes) on a 1,000,000-entity store that the engine made itself, from
/// pages of V4 JSON it loaded (``loadAgencies(into:count:)``): its key index, the index it was
/// declared with (`Agencies:Name`) and the statistics its load left, nothing added by hand.
///
/// (a) `Agencies?$filter=City eq 'City7'&$top=20` (City has no index: the key order serves it);
/// (b) `Agencies?$filter=City eq 'City7'` returning 50,000 entities, reported per row;
/// plus the reads of ``scaleReads(store:plain:count:automatic:)`` against plain SQLite.
/// Each against its floor: the same SQL through a prepared statement on a plain sqlite3
/// connection to the same file, with no OData work.
func readBenchmark() throws {
    let path = "/tmp/ood-read-benchmark-\(getpid()).sqlite"
    // OOD_KEEP_READ_DB=1 keeps the database for outside comparisons (Python's sqlite3, say).
    let keep = getenv("OOD_KEEP_READ_DB") != nil
    defer { if !keep { removeDatabase(path) } }
    let count = 1_000_000
    let store = try makeEngineStore(path: path, count: count)
    defer { store.close() }
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
    defer { sqlite3_close_v2(db) }

    let reader = LocalReader(model: store.model, schema: store.schema, dialect: .v4, serviceRoot: "http://localhost/service/")
    var sink = 0

    // (a) $top=20 on a property without an index, on the store as the engine made it.
    let topURL = "Agencies?$filter=City eq 'City7'&$top=20"
    let topSQL = try reader.translatedSQL(url: topURL)
    print("read: plan of (a): " + queryPlan(db, topSQL))
    let topFloor = try floor(db, topSQL, [.text("City7"), .integer(20)], iterations: 2_000) { sink &+= $0 }
    let topEngine = try Harness.median(samples: 21, iterations: 2_000) {
        for _ in 0..<2_000 { sink &+= try reader.read(url: topURL, in: store.file).body.count }
    }
    Harness.report("read (a): $top=20 filtered on a property without index, URL → JSON", value: topEngine / 1000, unit: "µs",
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

    let plainPath = "/tmp/ood-read-plain-\(getpid()).sqlite"
    defer { removeDatabase(plainPath) }
    let plain = try makePlainDatabase(path: plainPath, count: count)
    defer { sqlite3_close_v2(plain) }
    try scaleReads(store: store, plain: plain, count: count)
    if sink == 42 { print("") }
}

/// `read-scale N`: the reads of ``scaleReads(store:plain:count:automatic:)`` on stores of N
/// entities with codes, then ``navigationScaleReads(count:)`` (`make bench-10m` runs 1,000,000 and 10,000,000 here; `make bench` runs
/// the first three at 1,000,000 in `read`).
func readScaleBenchmark(_ arguments: [String]) throws {
    guard let text = arguments.first, let count = Int(String(text.filter { $0 != "_" })), count >= 1000 else {
        throw BenchmarkError("usage: read-scale ENTITIES (at least 1000)")
    }
    let path = "/tmp/ood-read-scale-\(getpid()).sqlite", plainPath = "/tmp/ood-read-scale-plain-\(getpid()).sqlite"
    defer { removeDatabase(path); removeDatabase(plainPath) }
    let store = try makeEngineStore(path: path, count: count, codes: true)
    defer { store.close() }
    let plain = try makePlainDatabase(path: plainPath, count: count, codes: true)
    defer { sqlite3_close_v2(plain) }
    try scaleReads(store: store, plain: plain, count: count, automatic: true)
    try navigationScaleReads(count: count)
}

/// The reads whose cost must follow the answer, not the store (issue 23), each through the store
/// API as an app (and the C API, which wraps it) reads: ``ODataStore/executeAndWait(_:)``, URL to
/// JSON, on a second handle of the store file. Against plain SQLite on the same data with the same
/// indexes (a rowid table, indexes on Name and Code, `ANALYZE`, the hand-written query):
/// (k) one entity by its key; (c) a key range with `$top=20`; (d) a filter on the declared-indexed `Name` (one entity);
/// (e) `$orderby` on `Name` with `$top=20`; with `automatic`, (f) a filter on `Code` (one
/// entity), which no index serves until its shape has repeated ``LocalStore/automaticIndexThreshold``
/// times and the engine made its automatic index (``LocalStore/createAutomaticIndexes(threshold:)``).
func scaleReads(store: LocalStore, plain: OpaquePointer, count: Int, automatic: Bool = false) throws {
    var sink = 0
    let size = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1000)k"
    let low = Int64(count - count / 10), name = "Agency \(count / 2 + 7)", code = "C\(count / 3 + 11)"
    let key = Int64(count / 2 + 7)
    var reads: [(label: String, url: String, plainSQL: String, parameters: [FloorParameter])] = [
        ("(k) one entity by its key", "Agencies(\(key))",
         "SELECT * FROM agencies WHERE ID = ?1", [.integer(key)]),
        ("(c) key range, $top=20", "Agencies?$filter=ID gt \(low)&$top=20",
         "SELECT * FROM agencies WHERE ID > ?1 ORDER BY ID LIMIT 20", [.integer(low)]),
        ("(d) filter on the declared-indexed Name", "Agencies?$filter=Name eq '\(name)'",
         "SELECT * FROM agencies WHERE Name = ?1 ORDER BY ID", [.text(name)]),
        ("(e) $orderby on the declared-indexed Name, $top=20", "Agencies?$orderby=Name&$top=20",
         "SELECT * FROM agencies ORDER BY Name, ID LIMIT 20", []),
    ]
    if automatic {
        let url = "Agencies?$filter=Code eq '\(code)'"
        reads.append(("(f) filter on Code, automatically indexed after the shape repeated", url,
                      "SELECT * FROM agencies WHERE Code = ?1 ORDER BY ID", [.text(code)]))
        // The shape repeats (each read scans, no index serves Code yet), then the engine indexes it.
        let start = Harness.now()
        for _ in 0..<LocalStore.automaticIndexThreshold { sink &+= try store.execute(method: "GET", url: url).body.count }
        let scan = Double(Harness.now() - start) / Double(LocalStore.automaticIndexThreshold)
        print("read \(size) (f): before its index, \(Harness.format(scan / 1e6)) ms a read; plan: "
              + (try store.explain(url: url).plan.joined(separator: "; ")))
        let made = try store.createAutomaticIndexes()
        print("read \(size) (f): the engine made " + made.map { "\($0.name) (\($0.origin.rawValue): \($0.reason))" }.joined(separator: ", "))
        guard made.contains(where: { $0.properties == ["Code"] }) else { throw BenchmarkError("no automatic index on Code was made") }
    }
    let api = try openOffline(store.file.path)
    defer { api.close() }
    for read in reads {
        print("read \(size) \(read.label): plan: " + (try store.explain(url: read.url).plan.joined(separator: "; ")))
        let plainTime = try floor(plain, read.plainSQL, read.parameters, iterations: 2_000) { sink &+= $0 }
        let request = ODataRequest(url: read.url)
        let engine = try Harness.median(samples: 21, iterations: 2_000) {
            for _ in 0..<2_000 { sink &+= try api.executeAndWait(request).body.count }
        }
        Harness.report("read \(size) \(read.label), URL → JSON through the store API", value: engine / 1000, unit: "µs",
                       baseline: ("plain SQLite with the index, stepped", plainTime / 1000), budget: "≤ 3× and flat from 1M to 10M")
    }
    if sink == 42 { print("") }
}

/// A second handle of the store file at `path` through the store API, as an app opens it: offline,
/// without a first download (the store was loaded, there is no service to ask).
func openOffline(_ path: String) throws -> ODataStore {
    var options = ODataStore.Options(path: path)
    options.mode = .offline
    options.downloadsOnFirstOpen = false
    let api = ODataStore.open(options)
    try api.waitUntilOpen()
    return api
}

/// An offline store of `count` agencies made by the engine: created with the declared index
/// `Agencies:Name`, filled by ``loadAgencies(into:count:codes:)``; with `codes`, its agencies
/// have a `Code` too (``scaleMetadata``), which no index is declared on.
func makeEngineStore(path: String, count: Int, codes: Bool = false,
                     serviceRoot: String? = "http://localhost/service/") throws -> LocalStore {
    removeDatabase(path)
    let store = try LocalStore.create(path: path, metadata: codes ? scaleMetadata : benchmarkMetadata,
                                        definingRequests: [DefiningRequest(name: "All", url: "Agencies")],
                                        serviceRoot: serviceRoot,
                                        indexes: [IndexDeclaration(entitySet: "Agencies", properties: ["Name"])])
    let start = Harness.now()
    try loadAgencies(into: store, count: count, codes: codes)
    print("read: the engine loaded \(count) entities from pages of V4 JSON in \(Harness.format(Double(Harness.now() - start) / 1e9)) s")
    return store
}

/// ``benchmarkMetadata`` with one more property, `Code` (`C` and a number, one per agency).
let scaleMetadata = benchmarkMetadata.replacing(
    #"<Property Name="Founded" Type="Edm.DateTimeOffset"/>"#,
    with: #"<Property Name="Founded" Type="Edm.DateTimeOffset"/><Property Name="Code" Type="Edm.String"/>"#)

/// Loads `count` agencies into `store` as the defining request `All`, through the engine's own
/// load (one transaction, pages of 10,000 made one at a time, statistics refreshed after):
/// ID i, `Agency i`, 20 cities, ratings 0 to 4, decimal revenues, instants, and with `codes`
/// `Code` `Ci`.
func loadAgencies(into store: LocalStore, count: Int, codes: Bool = false) throws {
    var next = 0
    _ = try store.load(definingRequest: "All") { () -> [UInt8]? in
        guard next < count else { return nil }
        let end = min(next + 10_000, count)
        var page = #"{"value":["#
        for id in next..<end {
            if id > next { page += "," }
            page += #"{"ID":\#(id),"Name":"Agency \#(id)","City":"City\#(id % 20)","Rating":\#(id % 5),"Revenue":\#(id % 1000).\#(id % 100),"Founded":"20\#(10 + id % 10)-0\#(1 + id % 9)-1\#(id % 9)T12:34:56Z""#
            page += codes ? #","Code":"C\#(id)"}"# : "}"
        }
        page += "]}"
        next = end
        return Array(page.utf8)
    }
}

/// The plain-SQLite baseline of the same agencies: a rowid table, an index on Name (and with
/// `codes` a Code column with its index), `ANALYZE`.
func makePlainDatabase(path: String, count: Int, codes: Bool = false) throws -> OpaquePointer {
    removeDatabase(path)
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
        throw BenchmarkError("cannot open \(path)")
    }
    try exec(db, "PRAGMA journal_mode = WAL; CREATE TABLE agencies (ID INTEGER PRIMARY KEY, Name TEXT, City TEXT, Rating INTEGER, Revenue TEXT, Founded TEXT"
             + (codes ? ", Code TEXT)" : ")"))
    try exec(db, "BEGIN")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO agencies VALUES (?1, ?2, ?3, ?4, ?5, ?6" + (codes ? ", ?7)" : ")"), -1, &insert, nil)
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
        if codes { sqlite3_bind_text(insert, 7, "C\(id)", -1, transient) }
        guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchmarkError("insert failed") }
    }
    sqlite3_finalize(insert)
    try exec(db, "CREATE INDEX agencies_name ON agencies (Name)")
    if codes { try exec(db, "CREATE INDEX agencies_code ON agencies (Code)") }
    try exec(db, "COMMIT")
    try exec(db, "ANALYZE")
    return db
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
func floor(_ db: OpaquePointer, _ sql: String, _ parameters: [FloorParameter], iterations: Int, samples: Int = 21,
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
