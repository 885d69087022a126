/// The new rows of a table that held nothing when the session first wrote to it, inserted a few
/// at a time by one multi-row `INSERT OR IGNORE` with their local ids given, instead of one
/// upsert per entity: SQLite's fixed cost per statement (its cursors opened and closed, the
/// statement reset) was a fifth of a download's writing.
///
/// Only for defining requests without `$expand` (``IngestSession/batchesFreshRows``): there no
/// entity's id is needed before its batch is written. The ids count from 1 as SQLite's would in
/// an empty table. A part of a batch in which some row was not inserted (the same key twice in
/// the download, a value the table refuses) is written again one upsert at a time, in order, as
/// if it had never been batched: the rows and errors are the same (the id the repeated key was
/// given stays unused).
final class FreshRows {
    /// The most rows one statement inserts; a batch is written in parts of powers of two so
    /// that few statement shapes are ever prepared.
    static let limit = 32
    /// The most bytes of text and binary values a batch gathers before it is written: the rows
    /// wait decoded, then bound, so a batch of large values held the page's values twice over
    /// besides the page (a page of 15 MiB strings cost four times its size). Past this, rows of
    /// large values go one or a few at a time; rows of ordinary sizes still fill a batch.
    static let byteLimit = 1 << 20

    private var plan: TablePlan?
    private var mask: [UInt64] = []
    private var rows = 0
    /// Per row: its id, `_ood_type` and `_ood_etag` when the mask has them, the present columns
    /// (the row's upsert parameters after its id).
    private var values: [SQLValue] = []
    /// The bytes of the text and binary values waiting.
    private var bytes = 0

    var isEmpty: Bool { rows == 0 }

    /// Whether a row of `state` may join the rows waiting (same table, same columns).
    func accepts(_ state: EntityState) -> Bool {
        rows == 0 || (plan === state.plan && mask == state.mask && rows < Self.limit && bytes < Self.byteLimit)
    }

    /// Adds a row: `id` is the local id it gets, `leading` its `_ood_type`/`_ood_etag` values.
    func append(_ state: EntityState, id: Int64, leading: [SQLValue], columns: [Int]) {
        if rows == 0 {
            plan = state.plan
            mask = state.mask
        }
        rows += 1
        bytes += Self.append(state, id: id, leading: leading, columns: columns, to: &values)
    }

    /// The row's values added to `values`, through one access to it: appending to the stored
    /// property value by value cost a dynamic exclusivity check each (about 1,100 instructions an
    /// entity of the ingest benchmark, issue 32). Gives the bytes of its text and binary values.
    private static func append(_ state: EntityState, id: Int64, leading: [SQLValue], columns: [Int],
                               to values: inout [SQLValue]) -> Int {
        var bytes = 0
        values.append(.integer(id))
        values.append(contentsOf: leading)
        for column in columns {
            let value = state.values[column]
            switch value {
            case .text(let text): bytes += text.utf8.count
            case .blob(let data): bytes += data.count
            case .null, .integer, .real: break
            }
            values.append(value)
        }
        return bytes
    }

    /// Inserts the waiting rows and records their memberships; the rows of a part that could not
    /// all be inserted are upserted one by one.
    func flush(session: IngestSession) throws(ODataError) {
        guard let plan, rows > 0 else { return }
        let perRow = values.count / rows
        var upsertedAlone = false
        var start = 0
        while start < rows {
            var count = Self.limit
            while count > rows - start { count /= 2 }
            let insert = try plan.freshInsert(for: mask, rows: count)
            let offset = start * perRow
            try insert.bind(count: count * perRow) { values[offset + $0] }
            while try insert.step() {}
            if session.db.changes == count {
                for row in start..<start + count {
                    guard case .integer(let id) = values[row * perRow] else { continue }
                    try session.addMembership(plan, entityID: id)
                }
            } else {
                // Those inserted are upserted again (same values), the others as they would
                // have been without batching; an upsert matches the key through its index.
                try plan.indexKeys(in: session.db)
                for row in start..<start + count {
                    let id = try upsert(values[(row * perRow + 1)..<((row + 1) * perRow)], into: plan)
                    try session.addMembership(plan, entityID: id)
                }
                upsertedAlone = true
            }
            start += count
        }
        // An upsert gives a new row SQLite's id: later batches start above every id in use.
        if upsertedAlone { plan.nextFreshID = max(plan.nextFreshID ?? 1, try plan.largestID() + 1) }
        // The room of a batch of large values is given back, not kept for the next batch.
        values.removeAll(keepingCapacity: bytes < Self.byteLimit)
        bytes = 0
        rows = 0
        self.plan = nil
    }

    /// One row's upsert (``TablePlan/write(_:count:parameter:key:)``, as ``EntityWriter`` writes
    /// an entity); its local id.
    private func upsert(_ parameters: ArraySlice<SQLValue>, into plan: TablePlan) throws(ODataError) -> Int64 {
        let upsert = try plan.upsert(for: mask)
        let first = parameters.startIndex
        return try plan.write(upsert, count: parameters.count, parameter: { parameters[first + $0] }) { () throws(ODataError) in
            // The key sits among the present columns, after `_ood_type` and `_ood_etag`.
            let leadingCount = parameters.count - upsert.columns.count
            var key: [SQLValue] = []
            for index in plan.keyIndices {
                guard let position = upsert.columns.firstIndex(of: index) else {
                    throw ODataError(.internalError, "a batched entity of '\(plan.table.entitySet)' has no key value")
                }
                key.append(parameters[first + leadingCount + position])
            }
            return key
        }
    }
}
