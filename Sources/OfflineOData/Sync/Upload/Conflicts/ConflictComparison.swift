/// The three versions of an entity in conflict, column by column: what the local change was made
/// on (``OriginalValues``), what the queued changes set, what the service has now. Compared as the
/// store keeps values (so `1.50` and `1.5` of a decimal are the same), shown as OData JSON.
struct ConflictComparison {
    let table: EntitySetTable
    let dialect: Dialect
    /// Column name → value the local change was made on.
    let original: [String: SQLValue]
    /// Column name → value the queued changes set (later ones over earlier ones).
    let local: [String: SQLValue]
    /// The service's entity; nil when it is gone.
    let served: ServedEntity?
    /// The first queued body that no longer reads against the model (it changed since the request
    /// was queued): its request and why. What it sets is missing from ``local``, so nothing built
    /// on the comparison (a merge, a resend that keeps the local columns) may go ahead.
    let unreadable: (requestID: Int64, reason: String)?

    /// Reads the queued bodies on the entity; a body that no longer reads adds nothing, and is
    /// named in ``unreadable``.
    init(table: EntitySetTable, dialect: Dialect, original: [String: SQLValue], queued: [QueuedRequest], served: ServedEntity?) {
        var local: [String: SQLValue] = [:]
        var unreadable: (requestID: Int64, reason: String)?
        for request in queued {
            guard let body = request.body else { continue }
            do throws(ODataError) {
                local.merge(try EntityBody(json: Array(body.utf8), table: table, dialect: dialect).values) { _, later in later }
            } catch {
                if unreadable == nil { unreadable = (request.id, error.message) }
            }
        }
        self.unreadable = unreadable
        self.table = table
        self.dialect = dialect
        self.original = original
        self.local = local
        self.served = served
    }

    /// The properties the local changes or the service changed, in the table's column order.
    var properties: [PropertyChange] {
        table.columns.compactMap { column -> PropertyChange? in
            let before = original[column.name]
            let mine = local[column.name]
            let theirs = served?.value(of: column)
            let localChanged: Bool
            if let mine { localChanged = before.map { !Self.same($0, mine) } ?? true } else { localChanged = false }
            let serviceChanged = theirs.map { value in before.map { !Self.same($0, value) } ?? false } ?? false
            let changer: PropertyChanger
            switch (localChanged, serviceChanged) {
            case (true, true): changer = Self.same(mine ?? .null, theirs ?? .null) ? .same : .both
            case (true, false): changer = .local
            case (false, true): changer = .service
            case (false, false): return nil
            }
            return PropertyChange(name: column.name, original: before.map { json($0, column) } ?? .null,
                                  local: mine.map { json($0, column) }, served: theirs.map { json($0, column) }, changedBy: changer)
        }
    }

    /// The saved original values as an OData JSON object.
    var originalJSON: JSONValue {
        .object(table.columns.compactMap { column in original[column.name].map { JSONMember(column.name, json($0, column)) } })
    }

    /// Whether the local change and the service changed a property to different values.
    var overlaps: Bool { properties.contains { $0.changedBy == .both } }

    /// The columns the local changes set.
    var touched: Set<String> { Set(local.keys) }

    /// An update body of the properties the local changes set to something other than the
    /// original value (every one they set when nothing was saved), as OData JSON; nil when one of
    /// them is inside a complex value (sent as the change has it then).
    var changedFieldsBody: JSONValue? {
        var members: [JSONMember] = []
        for column in table.columns {
            guard let mine = local[column.name] else { continue }
            if let before = original[column.name], Self.same(before, mine) { continue }
            guard column.path.count == 1 else { return nil }
            members.append(JSONMember(column.name, json(mine, column)))
        }
        return .object(members)
    }

    private func json(_ value: SQLValue, _ column: StoredColumn) -> JSONValue {
        var writer = JSONWriter()
        guard (try? EDMValueCodec.write(value, column: column, dialect: dialect, to: &writer)) != nil,
              let parsed = try? JSONValue.parse(writer.bytes) else { return .null }
        return parsed
    }

    /// SQLite's equality for stored values: integers and reals compare by number.
    static func same(_ left: SQLValue, _ right: SQLValue) -> Bool {
        switch (left, right) {
        case let (.integer(a), .real(b)), let (.real(b), .integer(a)): return Double(a) == b
        default: return left == right
        }
    }
}
