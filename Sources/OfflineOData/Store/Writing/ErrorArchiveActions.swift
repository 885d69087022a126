/// What a user does with a request in the error archive: send it again, corrected or not
/// (``requeue(id:body:on:)``), or discard it with the requests that build on it
/// (``discard(id:on:)``). Each runs in one transaction.
///
/// The requests that build on an archived request are the later requests on the same entity:
/// the upload archives them with it ("not sent: an earlier request on the same entity was
/// refused"), so they go back with it, and a discard takes them, queued or archived, with it.
struct ErrorArchiveActions {
    let schema: StoreSchema
    let dialect: Dialect

    // MARK: - Requeue

    /// Moves the archived request `id` back into the queue at its place, with the later archived
    /// requests on its entity; with `body`, the request's body is replaced first (validated like a
    /// local write's) and the entity's row takes its values. Returns how many requests went back.
    func requeue(id: Int64, body: String?, on db: SQLiteConnection) throws(ODataError) -> Int {
        try db.transaction { () throws(ODataError) -> Int in
            let archive = try RequestQueueTable.archived(in: db)
            guard let request = archive.first(where: { $0.request.id == id })?.request else {
                throw ODataError(.notFound, "the error archive has no request #\(id)")
            }
            guard let setName = request.entitySet, let entityID = request.entityID,
                  let table = schema.table(forEntitySet: setName) else {
                if body != nil {
                    throw ODataError(.misuse, "request #\(id) changes no entity of the store: its body cannot be replaced")
                }
                try RequestQueueTable.requeue(ids: [id], in: db)
                return 1
            }
            let moving = archive.filter { $0.request.entitySet == setName && $0.request.entityID == entityID && $0.request.id >= id }
            let methods = moving.map(\.request.method)
            let synced = try isSynced(entityID: entityID, in: table, on: db)
            if synced { try OriginalValues.save(entityID: entityID, of: table, on: db) }
            if let body {
                try apply(body, of: request, to: entityID, in: table, on: db)
                try RequestQueueTable.replaceArchivedBody(id: id, body: body, in: db)
            }
            try RequestQueueTable.requeue(ids: moving.map(\.request.id), in: db)
            // It has pending changes again; in error only while it has archived requests left.
            let change: LocalChange = methods.first == .post ? .created : methods.last == .delete ? .deleted : .updated
            let inError = try RequestQueueTable.archivedCount(entitySet: setName, entityID: entityID, in: db) > 0
            try db.prepare("""
                UPDATE \(table.quotedName) SET "_ood_change" = COALESCE("_ood_change", ?1), "_ood_error" = ?2 WHERE "_ood_id" = ?3
                """).run([.text(change.rawValue), .integer(inError ? 1 : 0), .integer(entityID)])
            return moving.count
        }
    }

    /// Whether the entity's row holds what the service last sent (no local change).
    private func isSynced(entityID: Int64, in table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Bool {
        let select = try db.prepare("SELECT \"_ood_change\" IS NULL FROM \(table.quotedName) WHERE \"_ood_id\" = ?1")
        try select.bind([.integer(entityID)])
        guard try select.step() else {
            throw ODataError(.notFound, "the entity the archived request changes is no longer in the store: discard the request")
        }
        return select.int(at: 0) != 0
    }

    /// Checks the new body against the model and gives the entity's row its values, as the local
    /// write did with the old one: the given properties, and for a PUT null for the others. A
    /// property a later request on the entity sets keeps that request's value.
    private func apply(_ body: String, of request: QueuedRequest, to entityID: Int64, in table: EntitySetTable,
                       on db: SQLiteConnection) throws(ODataError) {
        let method = request.method
        guard method != .delete else { throw ODataError(.misuse, "request #\(request.id) is a DELETE: it has no body to replace") }
        let entityBody = try EntityBody(json: Array(body.utf8), table: table, dialect: dialect)
        let later = try RequestQueueTable.laterChanges(entitySet: table.entitySet, entityID: entityID, after: request.id, in: db)
        // A create alone may take another key (the service refused the one it had); otherwise
        // later requests address the entity by its key, which must stay.
        if method != .post || !later.isEmpty {
            try checkKeyUnchanged(entityBody, entityID: entityID, in: table, on: db)
        }
        var assignments = try entityBody.assignments(in: table)
        if method == .put {
            for column in table.columns where entityBody.value(of: column) == nil && !table.keyColumns.contains(column) {
                try EntityBody.check(.null, against: column)
                assignments.append(.null(column))
            }
        }
        if later.contains(where: { $0.method == .put }) { return }
        var setLater = Set<String>()
        for change in later {
            guard let laterBody = change.body, let parsed = try? EntityBody(json: Array(laterBody.utf8), table: table, dialect: dialect)
            else { continue }
            setLater.formUnion(parsed.columnOrder)
        }
        assignments.removeAll { setLater.contains($0.name) }
        guard !assignments.isEmpty else { return }
        let sets = assignments.enumerated().map { "\($0.element.quotedColumn) = ?\($0.offset + 1)" }
        try db.prepare("UPDATE \(table.quotedName) SET \(sets.joined(separator: ", ")) WHERE \"_ood_id\" = ?\(assignments.count + 1)")
            .run(assignments.map(\.value) + [.integer(entityID)])
    }

    /// A corrected body may not move an entity other requests address by its key to another key.
    private func checkKeyUnchanged(_ body: EntityBody, entityID: Int64, in table: EntitySetTable,
                                   on db: SQLiteConnection) throws(ODataError) {
        let given = table.keyColumns.compactMap { column in body.value(of: column).map { (column, $0) } }
        guard !given.isEmpty else { return }
        let select = try db.prepare("SELECT \(given.map { $0.0.quotedName }.joined(separator: ", ")) "
                                    + "FROM \(table.quotedName) WHERE \"_ood_id\" = ?1")
        try select.bind([.integer(entityID)])
        guard try select.step() else { return }
        for (index, (column, value)) in given.enumerated() where select.value(at: index) != value {
            throw ODataError(.constraint, "the key property '\(column.name)' cannot be changed by a requeue: "
                             + "discard the request and make the change again")
        }
    }

    // MARK: - Discard

    /// Discards the archived request `id` (nil: every archived request) with the requests that
    /// build on it, queued or archived. When it is its entity's earliest request, the entity gets
    /// back what the service last sent, as after an undo (``LocalUndo/revert(entityID:of:on:)``):
    /// an entity created offline leaves the store. Returns how many requests were dropped.
    func discard(id: Int64?, on db: SQLiteConnection) throws(ODataError) -> Int {
        try db.transaction { () throws(ODataError) -> Int in
            let archive = try RequestQueueTable.archived(in: db).map(\.request)
            var targets: [QueuedRequest]
            if let id {
                guard let request = archive.first(where: { $0.id == id }) else {
                    throw ODataError(.notFound, "the error archive has no request #\(id)")
                }
                targets = [request]
            } else {
                // Each entity from its earliest archived request; the later ones go with it.
                var seen = Set<String>()
                targets = archive.filter { request in
                    guard let setName = request.entitySet, let entityID = request.entityID else { return true }
                    return seen.insert("\(setName)\u{0}\(entityID)").inserted
                }
            }
            var dropped = 0
            for request in targets {
                dropped += try discard(request, on: db)
            }
            return dropped
        }
    }

    private func discard(_ request: QueuedRequest, on db: SQLiteConnection) throws(ODataError) -> Int {
        guard let setName = request.entitySet, let entityID = request.entityID,
              let table = schema.table(forEntitySet: setName) else {
            try RequestQueueTable.deleteArchived(id: request.id, in: db)
            return 1
        }
        if try RequestQueueTable.earliestRequestID(entitySet: setName, entityID: entityID, in: db) == request.id {
            return try LocalUndo.revert(entityID: entityID, of: table, on: db).droppedRequests
        }
        // Earlier requests on the entity stay: it keeps its pending changes.
        let dropped = try RequestQueueTable.dropRequests(entitySet: setName, entityID: entityID, from: request.id, in: db)
        if try RequestQueueTable.archivedCount(entitySet: setName, entityID: entityID, in: db) == 0 {
            try db.prepare("UPDATE \(table.quotedName) SET \"_ood_error\" = 0 WHERE \"_ood_id\" = ?1").run([.integer(entityID)])
        }
        return dropped
    }
}
