internal import CSQLite

/// Everything an ingest session needs to write one entity set's table quickly: where each payload
/// property goes, and the upsert statements already prepared for each set of present columns.
///
/// Payload order does not matter: an entity's values are collected by column index, and the
/// statement is chosen by which columns are present (a bit mask), so pages of the same shape reuse
/// one prepared statement and never build SQL text per entity.
final class TablePlan {
    let table: EntitySetTable
    /// `table.columns`, each in a box: the hot path borrows a column from its box, where taking
    /// it from an array copies it (retaining each of its many fields).
    let columnBoxes: [ColumnBox]
    /// Per column, the fast way from a JSON token to its stored value (``IngestForm``).
    let forms: [IngestForm]
    /// Top-level property names to their column or their flattened complex value.
    let members: [String: MemberTarget]
    /// The same top-level members, found by their bytes (the per-property fast path).
    let memberBytes: ByteKeyedTable<MemberTarget>
    /// Indices into `table.columns` of the key, in key order.
    let keyIndices: [Int]
    /// Bit positions of the system columns in a presence mask (after the property columns).
    var typeBit: Int { table.columns.count }
    var etagBit: Int { table.columns.count + 1 }
    /// How many 64-bit words a presence mask has.
    let maskWords: Int
    /// The streams of the set's entities (``StreamRecord/property`` names; empty for most sets):
    /// the media ETags a payload announces for them are recorded (``EntityWriter``).
    var streamNames: [String] = []
    /// Set while a staging table is written without its key index, its keys only growing
    /// (``IncreasingKeys``); nil for any other table.
    var increasingKeys: IncreasingKeys?

    /// Entities written in this session (their `_ood_id`s): a full refresh removes the defining
    /// request's other memberships. About a bit per entity (``EntityIDSet``).
    var seen = EntityIDSet()
    /// Entities of this page whose membership is not written yet.
    var pendingMemberships: [Int64] = []
    /// Buffers of written entities, reused so that reading an entity allocates nothing: a page is
    /// written entity by entity, so these hold one or two entities' buffers, not a page's.
    var spareValues: [[SQLValue]] = []
    var spareMasks: [[UInt64]] = []

    private let db: SQLiteConnection
    private var upserts: [[UInt64]: Upsert] = [:]

    init(table: EntitySetTable, db: SQLiteConnection) throws(ODataError) {
        guard !table.keyColumns.isEmpty else {
            throw ODataError(.unsupported, "entity set '\(table.entitySet)' has no usable key, so downloaded entities cannot be matched with stored ones")
        }
        self.table = table
        columnBoxes = table.columns.map(ColumnBox.init)
        forms = table.columns.map(IngestForm.init)
        self.db = db
        var indexByName: [String: Int] = [:]
        for (index, column) in table.columns.enumerated() { indexByName[column.name] = index }
        keyIndices = table.keyColumns.compactMap { indexByName[$0.name] }
        members = Self.memberTree(table.columns)
        memberBytes = ByteKeyedTable(members.map { ($0.key, $0.value) })
        maskWords = (table.columns.count + 2 + 63) / 64
    }

    /// The columns present in `mask`, in column order (an upsert's parameters after `_ood_type`
    /// and `_ood_etag`), without preparing an upsert: a staging table written without its key
    /// index (``IncreasingKeys``) has none to prepare.
    func presentColumns(for mask: [UInt64]) -> [Int] {
        // Entities of a page mostly have the same columns: skip building them again then.
        if let recentColumns, recentColumns.mask == mask { return recentColumns.columns }
        let columns = table.columns.indices.filter { isSet(mask, $0) }
        recentColumns = (mask, columns)
        return columns
    }

    private var recentColumns: (mask: [UInt64], columns: [Int])?

    /// The upsert for the columns present in `mask`, prepared on first use.
    ///
    /// `INSERT … ON CONFLICT(key) DO UPDATE SET …`: property columns are only
    /// overwritten while the entity has no pending local change (`_ood_change IS NULL`); the ETag
    /// and the type are always refreshed (the upload sends the ETag the entity had when it was
    /// changed, which the request queue keeps). Parameters: `_ood_type`, `_ood_etag` (when
    /// present), then the property columns in column order.
    func upsert(for mask: [UInt64]) throws(ODataError) -> Upsert {
        // Entities of a page mostly have the same columns: skip hashing the mask then.
        if let recentUpsert, recentUpsert.mask == mask { return recentUpsert }
        let upsert = try preparedUpsert(for: mask)
        recentUpsert = upsert
        return upsert
    }

    /// An upsert statement and the property columns its parameters take, in order (after
    /// `_ood_type` and `_ood_etag` when the mask has them).
    struct Upsert {
        let mask: [UInt64]
        let statement: Statement
        let columns: [Int]
    }

    private var recentUpsert: Upsert?

    private func preparedUpsert(for mask: [UInt64]) throws(ODataError) -> Upsert {
        if let upsert = upserts[mask] { return upsert }
        var names: [String] = []
        var updates: [String] = []
        if isSet(mask, typeBit) {
            names.append("\"_ood_type\"")
            updates.append("\"_ood_type\" = excluded.\"_ood_type\"")
        }
        if isSet(mask, etagBit) {
            names.append("\"_ood_etag\"")
            updates.append("\"_ood_etag\" = excluded.\"_ood_etag\"")
        }
        for (index, column) in table.columns.enumerated() where isSet(mask, index) {
            let name = column.quotedName
            names.append(name)
            if !keyIndices.contains(index) {
                updates.append("\(name) = CASE WHEN \"_ood_change\" IS NULL THEN excluded.\(name) ELSE \(name) END")
            }
        }
        let placeholders = (1...names.count).map { "?\($0)" }.joined(separator: ", ")
        let conflict = table.keyColumns.map(\.quotedName).joined(separator: ", ")
        // No RETURNING: it makes SQLite buffer the row in an ephemeral table, which costs more
        // than the key lookup the writer does when the row already existed.
        let action = updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", ")
        let sql = """
            INSERT INTO \(table.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders))
            ON CONFLICT (\(conflict)) DO \(action)
            """
        let upsert = Upsert(mask: mask, statement: try db.prepare(sql),
                            columns: table.columns.indices.filter { isSet(mask, $0) })
        upserts[mask] = upsert
        return upsert
    }

    /// The local id of the next new row while the table holds only rows this session inserted
    /// (``FreshRows``); nil until ``takeFreshID()`` first looks, and when the table held rows.
    var nextFreshID: Int64?
    private var freshnessKnown = false

    /// A local id for a new row, when the table held nothing at this session's first write to
    /// it: 1, 2, ... as SQLite would give them. Nil when it held rows (upserts decide then).
    func takeFreshID() throws(ODataError) -> Int64? {
        if !freshnessKnown {
            freshnessKnown = true
            let empty = try db.scalarInt("SELECT NOT EXISTS (SELECT 1 FROM \(table.quotedName))") == 1
            nextFreshID = empty ? 1 : nil
        }
        guard let id = nextFreshID else { return nil }
        nextFreshID = id + 1
        return id
    }

    /// Takes new rows in batches with ids above every id in the table: for a table that holds
    /// only rows of this download (a staging table, ``IngestSession/init(definingRequest:model:schema:dialect:db:writingInto:)``),
    /// also after an interrupted download of it wrote some.
    func continueFreshIDs() throws(ODataError) {
        freshnessKnown = true
        nextFreshID = try largestID() + 1
    }

    /// The largest local id in the table (0 when it is empty).
    func largestID() throws(ODataError) -> Int64 {
        try db.scalarInt("SELECT max(\"_ood_id\") FROM \(table.quotedName)") ?? 0
    }

    /// `INSERT OR IGNORE … VALUES (…), (…)` of `rows` rows with the columns present in `mask`,
    /// prepared on first use. Parameters per row: `_ood_id`, `_ood_type` and `_ood_etag` when
    /// present, then the property columns in column order.
    func freshInsert(for mask: [UInt64], rows: Int) throws(ODataError) -> Statement {
        let key = FreshInsertKey(mask: mask, rows: rows)
        if let statement = freshInserts[key] { return statement }
        var names = ["\"_ood_id\""]
        if isSet(mask, typeBit) { names.append("\"_ood_type\"") }
        if isSet(mask, etagBit) { names.append("\"_ood_etag\"") }
        for (index, column) in table.columns.enumerated() where isSet(mask, index) { names.append(column.quotedName) }
        let row = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let statement = try db.prepare("""
            INSERT OR IGNORE INTO \(table.quotedName) (\(names.joined(separator: ", ")))
            VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            """)
        freshInserts[key] = statement
        return statement
    }

    private struct FreshInsertKey: Hashable {
        let mask: [UInt64]
        let rows: Int
    }

    private var freshInserts: [FreshInsertKey: Statement] = [:]

    /// Runs `upsert` with its `count` parameters and returns the row's local id: a new row's
    /// rowid, or, for a row that existed and was updated (which leaves the last insert rowid at
    /// 0; rowids start at 1), the id found by `key`.
    func write(_ upsert: Upsert, count: Int, parameter: (Int) -> SQLValue,
               key: () throws(ODataError) -> [SQLValue]) throws(ODataError) -> Int64 {
        guard let handle = db.handle else { throw ODataError(.misuse, "the store is closed") }
        sqlite3_set_last_insert_rowid(handle, 0)
        try upsert.statement.bind(count: count, parameter)
        while try upsert.statement.step() {}
        let id = sqlite3_last_insert_rowid(handle)
        if id != 0 { return id }
        let find = try findByKey()
        try find.bind(try key())
        guard try find.step() else {
            throw ODataError(.internalError, "the upserted entity of '\(table.entitySet)' cannot be found by its key")
        }
        let found = find.int(at: 0)
        while try find.step() {}
        return found
    }

    /// `SELECT _ood_id … WHERE key = ?`, for entities the upsert updated instead of inserting.
    func findByKey() throws(ODataError) -> Statement {
        if let findStatement { return findStatement }
        let condition = table.keyColumns.enumerated().map { "\($0.element.quotedName) = ?\($0.offset + 1)" }
        let statement = try db.prepare("SELECT \"_ood_id\" FROM \(table.quotedName) WHERE \(condition.joined(separator: " AND "))")
        findStatement = statement
        return statement
    }

    private var findStatement: Statement?

    @inline(__always)
    func isSet(_ mask: [UInt64], _ bit: Int) -> Bool {
        mask[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// Sets or clears one bit of a presence mask.
    @inline(__always)
    func mark(_ mask: inout [UInt64], _ bit: Int, present: Bool) {
        let flag: UInt64 = 1 << UInt64(bit & 63)
        if present { mask[bit >> 6] |= flag } else { mask[bit >> 6] &= ~flag }
    }

    // MARK: - Property tree

    /// The columns of a table arranged as the payload nests them: `Location/City/Name` under
    /// `Location` → `City` → `Name`.
    private static func memberTree(_ columns: [StoredColumn]) -> [String: MemberTarget] {
        var builder = MemberTreeBuilder()
        for (index, column) in columns.enumerated() { builder.add(path: column.path[...], index: index) }
        return builder.tree()
    }
}

/// Where one payload member goes.
enum MemberTarget {
    /// A stored column, by index into the table's columns. Not boxed: every property read
    /// copies its target, which then costs no reference counting.
    case column(Int)
    /// A complex value flattened into leaf columns: its members, and every leaf index below it
    /// (a null complex value nulls them all).
    indirect case complex(members: [String: MemberTarget], leaves: [Int])
}

/// Builds the member tree from column paths (a mutable intermediate, turned into ``MemberTarget``).
private struct MemberTreeBuilder {
    private final class Node {
        var column: Int?
        var children: [String: Node] = [:]
        var order: [String] = []
    }

    private let root = Node()

    mutating func add(path: ArraySlice<String>, index: Int) {
        var node = root
        for name in path {
            if let child = node.children[name] {
                node = child
            } else {
                let child = Node()
                node.children[name] = child
                node.order.append(name)
                node = child
            }
        }
        node.column = index
    }

    func tree() -> [String: MemberTarget] { Self.members(of: root) }

    private static func members(of node: Node) -> [String: MemberTarget] {
        var result: [String: MemberTarget] = [:]
        for (name, child) in node.children { result[name] = target(child) }
        return result
    }

    private static func target(_ node: Node) -> MemberTarget {
        if let column = node.column { return .column(column) }
        return .complex(members: members(of: node), leaves: leaves(node))
    }

    private static func leaves(_ node: Node) -> [Int] {
        var result: [Int] = []
        var pending = [node]
        while let next = pending.popLast() {
            if let column = next.column { result.append(column) }
            pending.append(contentsOf: next.children.values)
        }
        return result.sorted()
    }
}

/// One stored column behind a reference, so reading it does not copy it.
final class ColumnBox {
    let column: StoredColumn
    init(_ column: StoredColumn) { self.column = column }
}
