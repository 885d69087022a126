import CSQLite
@_spi(Tool) import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

/// `ingest`: 100 pages of 1,000 V4 entities (15 properties: strings, integers, decimals, a double,
/// a date, an instant, a boolean, a null) loaded into a file store in `/tmp` in one session.
/// Reports entities per second and the median time per page.
///
/// Baseline: the same rows, already as values, inserted with one prepared plain `INSERT` into a
/// plain table of the same columns in another file, in one transaction: the SQLite floor. The
/// ingest does more (JSON parsing, value conversion, an upsert through the key index, a membership
/// row per entity), so the ratio says what that costs on top of the floor.
func ingestBenchmark() throws {
    let pageCount = 100, pageSize = 1_000
    let model = try MetadataReader.read(ingestBenchmarkMetadata)
    let schema = try StoreSchema(model: model)
    let pages = (0..<pageCount).map { ingestBenchmarkPage($0, size: pageSize) }
    let request = DefiningRequest(name: "Orders", url: "Orders")
    let storePath = "/tmp/ood-ingest-benchmark-\(getpid()).store"
    let floorPath = "/tmp/ood-ingest-benchmark-\(getpid()).floor"
    defer { for path in [storePath, floorPath] { removeDatabase(path) } }

    var pageTimes: [Double] = []
    var ingestCPU: [Double] = [], floorCPU: [Double] = []
    let ingest = try Harness.median(samples: 5, warmup: 1) {
        let cpuStart = processCPUTime()
        defer { ingestCPU.append(processCPUTime() - cpuStart) }
        removeDatabase(storePath)
        let store = try StoreFile(path: storePath)
        defer { store.close() }
        try store.createTables(for: schema)
        var last = Harness.now()
        var times: [Double] = []
        try store.ingest(pages: pages, definingRequest: request, model: model, schema: schema, dialect: .v4,
                         fullRefresh: true) { _, _ in
            let now = Harness.now()
            times.append(Double(now - last))
            last = now
        }
        pageTimes = times
    }
    let rows = (0..<(pageCount * pageSize)).map { FloorRow(BenchmarkRow(n: $0)) }
    let floor = try Harness.median(samples: 5, warmup: 1) {
        let cpuStart = processCPUTime()
        defer { floorCPU.append(processCPUTime() - cpuStart) }
        removeDatabase(floorPath)
        try plainInsertFloor(path: floorPath, rows: rows)
    }
    pageTimes.sort()
    let entities = Double(pageCount * pageSize)
    Harness.report("ingest (entities/s, 100 pages x 1000 V4 entities, 15 properties, file store)",
                   value: entities / (ingest / 1e9), unit: "entities/s",
                   baseline: ("plain prepared INSERT", entities / (floor / 1e9)),
                   budget: "> 350000 entities/s (2x Python's 175000 incl. HTTP)")
    // CPU time of this process: steadier than wall time on a shared machine (it leaves out
    // waiting for the disk and for other processes).
    Harness.report("ingest CPU time (entities per CPU second)", value: entities / (median(ingestCPU) / 1e9), unit: "entities/s",
                   baseline: ("plain prepared INSERT", entities / (median(floorCPU) / 1e9)))
    Harness.report("ingest (median ms per page of 1000)", value: (pageTimes.isEmpty ? 0 : pageTimes[pageTimes.count / 2]) / 1e6, unit: "ms",
                   baseline: ("plain prepared INSERT per 1000 rows", floor / Double(pageCount) / 1e6))
}

private let ingestBenchmarkMetadata = """
    <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
      <edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="B">
          <EntityType Name="Order">
            <Key><PropertyRef Name="OrderID"/></Key>
            <Property Name="OrderID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Code" Type="Edm.String"/>
            <Property Name="Customer" Type="Edm.String"/>
            <Property Name="City" Type="Edm.String"/>
            <Property Name="Country" Type="Edm.String"/>
            <Property Name="Quantity" Type="Edm.Int32"/>
            <Property Name="Price" Type="Edm.Decimal" Scale="2"/>
            <Property Name="Discount" Type="Edm.Decimal" Scale="2"/>
            <Property Name="Weight" Type="Edm.Double"/>
            <Property Name="OrderDate" Type="Edm.Date"/>
            <Property Name="ChangedAt" Type="Edm.DateTimeOffset"/>
            <Property Name="Paid" Type="Edm.Boolean"/>
            <Property Name="Points" Type="Edm.Int64"/>
            <Property Name="Currency" Type="Edm.String"/>
            <Property Name="Note" Type="Edm.String"/>
          </EntityType>
          <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="B.Order"/></EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

/// The values of entity `n`, shared by the JSON page and the floor's rows.
private struct BenchmarkRow {
    let n: Int
    var code: String { "C\(n % 9973)-\(n)" }
    var customer: String { "Customer number \(n % 5000)" }
    var city: String { ["Rome", "Berlin", "New York", "Beijing", "São Paulo"][n % 5] }
    var quantity: Int { n % 100 }
    var price: String { "\(n % 10_000).\(10 + n % 90)" }
    var discount: String { "0.\(10 + n % 80)" }
    var weight: Double { Double(n % 1000) / 8 }
    var date: String { "2026-\(10 + n % 3)-\(10 + n % 18)" }
    var changed: String { "2026-11-\(10 + n % 18)T12:\(10 + n % 50):00Z" }
}

private func ingestBenchmarkPage(_ page: Int, size: Int) -> [UInt8] {
    var text = #"{"@odata.context":"$metadata#Orders","value":["#
    for i in 0..<size {
        let row = BenchmarkRow(n: page * size + i)
        if i > 0 { text += "," }
        text += #"{"@odata.etag":"W/\"1\"","OrderID":\#(row.n),"Code":"\#(row.code)","Customer":"\#(row.customer)","#
        text += #""City":"\#(row.city)","Country":"US","Quantity":\#(row.quantity),"Price":\#(row.price),"#
        text += #""Discount":\#(row.discount),"Weight":\#(row.weight),"OrderDate":"\#(row.date)","ChangedAt":"\#(row.changed)","#
        text += #""Paid":\#(row.n % 2 == 0),"Points":\#(row.n * 7),"Currency":"USD","Note":null}"#
    }
    text += #"],"@odata.nextLink":"Orders?$skiptoken=\#(page + 1)"}"#
    return Array(text.utf8)
}

/// The floor: the same rows through one prepared plain INSERT into a plain table, one transaction.
/// A row's values computed up front, so the floor times SQLite only.
private struct FloorRow {
    let n: Int64, quantity: Int64, points: Int64, paid: Int64
    let code, customer, city, price, discount, date, changed: String
    let weight: Double

    init(_ row: BenchmarkRow) {
        n = Int64(row.n)
        quantity = Int64(row.quantity)
        points = Int64(row.n * 7)
        paid = row.n % 2 == 0 ? 1 : 0
        code = row.code
        customer = row.customer
        city = row.city
        price = row.price
        discount = row.discount
        date = row.date
        changed = row.changed
        weight = row.weight
    }
}

private func plainInsertFloor(path: String, rows: [FloorRow]) throws {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchmarkError("open") }
    defer { sqlite3_close(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
    }
    try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
    try exec("""
        CREATE TABLE t (OrderID INTEGER, Code TEXT, Customer TEXT, City TEXT, Country TEXT, Quantity INTEGER, Price TEXT,
                        Discount TEXT, Weight REAL, OrderDate TEXT, ChangedAt TEXT, Paid INTEGER, Points INTEGER,
                        Currency TEXT, Note TEXT, etag TEXT)
        """)
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)", -1, &statement, nil) == SQLITE_OK,
          let statement else { throw BenchmarkError("prepare") }
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    func text(_ index: Int32, _ value: String) {
        sqlite3_bind_text(statement, index, value, -1, transient)
    }
    try exec("BEGIN")
    for row in rows {
        sqlite3_bind_int64(statement, 1, row.n)
        text(2, row.code)
        text(3, row.customer)
        text(4, row.city)
        text(5, "US")
        sqlite3_bind_int64(statement, 6, row.quantity)
        text(7, row.price)
        text(8, row.discount)
        sqlite3_bind_double(statement, 9, row.weight)
        text(10, row.date)
        text(11, row.changed)
        sqlite3_bind_int64(statement, 12, row.paid)
        sqlite3_bind_int64(statement, 13, row.points)
        text(14, "USD")
        sqlite3_bind_null(statement, 15)
        text(16, "W/\"1\"")
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }
    try exec("COMMIT")
}

/// Nanoseconds of CPU this process used so far.
private func processCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}


func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
}
