/// The checks of ``StoreFile/check(quick:)``: SQLite's own (``SQLiteCheck``), then the engine's invariants, each
/// a query whose rows are the faults (at most 20 of each kind are reported).
///
/// The invariants: an entity with local changes has a queued or archived request, and every
/// queued request's entity is in its table and marked as changed; what the defining requests
/// hold, the navigation links and the saved original values point to entities that are there;
/// every set named is one of the model's.
enum StoreCheck {
    static func run(on db: SQLiteConnection, quick: Bool) throws(ODataError) -> [StoreFinding] {
        var findings = try SQLiteCheck.sqliteFindings(on: db, quick: quick)
        // The engine's checks read tables that a damaged file may not give back.
        guard findings.isEmpty else { return findings }
        let schema = try storedSchema(on: db)
        let tables = schema?.tables ?? []
        for table in tables {
            findings += try engineFindings(for: table, on: db)
        }
        if let schema {
            findings += try unknownSets(on: db, known: Set(schema.tables.map(\.entitySet)))
        }
        findings += try rows("""
            SELECT DISTINCT defining_request FROM ood_membership
            WHERE defining_request NOT IN (SELECT name FROM ood_defining_request) LIMIT 20
            """, [], on: db, check: "membership") { "entities are held by the defining request '\($0)', which the store does not have" }
        findings += try rows("""
            SELECT id || ' (' || state || ')' FROM ood_request_queue WHERE state NOT IN ('pending', 'sent') LIMIT 20
            """, [], on: db, check: "queue") { "queued request #\($0) is in an unknown state" }
        return findings
    }

    /// The tables of the model the store keeps, or nil for a store without one.
    private static func storedSchema(on db: SQLiteConnection) throws(ODataError) -> StoreSchema? {
        guard let metadata = try StoreInfoTable.value("metadata", in: db) else { return nil }
        let offsets = try StoreInfoTable.value(StoreSchema.instantOffsetsKey, in: db)
        return try StoreSchema(model: try MetadataReader.read(metadata), keepingInstantOffsets: offsets == "1")
    }

    private static func engineFindings(for table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> [StoreFinding] {
        let t = table.quotedName
        let set = table.entitySet
        let exists = "EXISTS (SELECT 1 FROM \(t) WHERE \"_ood_id\" = "
        var findings: [StoreFinding] = []
        findings += try rows("""
            SELECT "_ood_id" FROM \(t) WHERE "_ood_change" IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = \(t)."_ood_id")
            AND NOT EXISTS (SELECT 1 FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = \(t)."_ood_id")
            LIMIT 20
            """, [.text(set)], on: db, check: "queue") {
            "entity #\($0) of '\(set)' has local changes but no queued or archived request"
        }
        findings += try rows("""
            SELECT q.id || ' (' || q.method || ' ' || q.url || ') points to entity #' || q.entity_id
            FROM ood_request_queue q WHERE q.entity_set = ?1 AND q.entity_id IS NOT NULL AND NOT \(exists)q.entity_id)
            LIMIT 20
            """, [.text(set)], on: db, check: "queue") { "queued request #\($0) of '\(set)', which the store does not have" }
        findings += try rows("""
            SELECT q.id || ' (' || q.method || ' ' || q.url || ') changes entity #' || q.entity_id
            FROM ood_request_queue q JOIN \(t) e ON e."_ood_id" = q.entity_id
            WHERE q.entity_set = ?1 AND e."_ood_change" IS NULL LIMIT 20
            """, [.text(set)], on: db, check: "queue") { "queued request #\($0) of '\(set)', which is not marked as changed" }
        findings += try rows("""
            SELECT m.entity_id || ' (held by ' || m.defining_request || ')' FROM ood_membership m
            WHERE m.entity_set = ?1 AND NOT \(exists)m.entity_id) LIMIT 20
            """, [.text(set)], on: db, check: "membership") { "entity #\($0) of '\(set)' is not in the store" }
        findings += try rows("""
            SELECT l.source_id || ' ' || l.navigation FROM ood_link l
            WHERE l.source_set = ?1 AND NOT \(exists)l.source_id) LIMIT 20
            """, [.text(set)], on: db, check: "link") { "a link starts at entity #\($0) of '\(set)', which is not in the store" }
        findings += try rows("""
            SELECT l.target_id FROM ood_link l WHERE l.target_set = ?1 AND NOT \(exists)l.target_id) LIMIT 20
            """, [.text(set)], on: db, check: "link") { "a link leads to entity #\($0) of '\(set)', which is not in the store" }
        findings += try rows("""
            SELECT DISTINCT o.entity_id FROM ood_original o WHERE o.entity_set = ?1 AND NOT \(exists)o.entity_id) LIMIT 20
            """, [.text(set)], on: db, check: "original") { "saved values are kept for entity #\($0) of '\(set)', which is not in the store" }
        return findings
    }

    /// Sets named by the queue, the memberships and the links that the model lacks.
    private static func unknownSets(on db: SQLiteConnection, known: Set<String>) throws(ODataError) -> [StoreFinding] {
        var findings: [StoreFinding] = []
        let sources = [("queue", "SELECT DISTINCT entity_set FROM ood_request_queue WHERE entity_set IS NOT NULL"),
                       ("membership", "SELECT DISTINCT entity_set FROM ood_membership"),
                       ("link", "SELECT source_set FROM ood_link UNION SELECT target_set FROM ood_link")]
        for (check, sql) in sources {
            let statement = try db.prepare(sql)
            try statement.bind([])
            while try statement.step() {
                let name = statement.text(at: 0) ?? ""
                if !known.contains(name) {
                    findings.append(StoreFinding(check: check, message: "the \(check) names the entity set '\(name)', which the model lacks"))
                }
            }
        }
        return findings
    }

    /// A finding per row of `sql` (its first column, as text).
    private static func rows(_ sql: String, _ arguments: [SQLValue], on db: SQLiteConnection, check: String,
                             _ describe: (String) -> String) throws(ODataError) -> [StoreFinding] {
        let statement = try db.prepare(sql)
        try statement.bind(arguments)
        var findings: [StoreFinding] = []
        while try statement.step() {
            findings.append(StoreFinding(check: check, message: describe(statement.text(at: 0) ?? "")))
        }
        return findings
    }
}

extension StoreFile {
    /// Checks the store: SQLite's integrity check (`quick_check` when `quick`) and the engine's
    /// own invariants (``StoreCheck``). Empty when the store is sound.
    /// A file too damaged to read at all gives SQLite's error as its one finding.
    @_spi(Tool) public func check(quick: Bool = false) throws(ODataError) -> [StoreFinding] {
        do {
            return try withReadConnection { db, _ throws(ODataError) in
                try StoreCheck.run(on: db, quick: quick)
                    + StreamCheck.findings(folder: StreamFolder(storePath: path), on: db, quick: quick)
            }
        } catch where error.code == .storage || error.code == .notAStore {
            return [StoreFinding(check: "sqlite", message: error.message)]
        }
    }
}
