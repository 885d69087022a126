/// What a local write did.
package struct WriteOutcome: Sendable, Equatable {
    /// The HTTP status the service would answer: 201 for a create, 204 otherwise.
    package var status: Int
    package var entitySet: String
    /// The local identity of the entity written.
    package var entityID: Int64
    /// The queued request that will make the same change on the service.
    package var queueID: Int64
    /// For a create: the entity as stored, as the service answers a create (V4 JSON with its
    /// context, or V2 `{"d": ...}`), provisional key and pending state included; else empty.
    package var body: [UInt8] = []
    /// For a create: the entity's absolute address (`Location`), its key as stored; else nil.
    package var location: String? = nil
}

/// Applies POST, PUT, PATCH, MERGE (V2) and DELETE to the store's tables and appends the request
/// to the request queue, both in one SQLite transaction: after a crash the tables and the queue
/// still agree (DESIGN.md §3 "Write").
///
/// The request is validated against the model first (the URL is bound like a read; the body's
/// members must be properties with values of their types, nullability and MaxLength kept), so
/// the queue only holds requests the service can be expected to accept. The queued request is the
/// caller's own URL and body: it is what the service will receive at upload.
///
/// Local state, kept in `_ood_change`: a create is `created`; an update of a synced entity makes
/// it `updated` (a created entity stays `created`); a delete makes it `deleted`, which hides it
/// from reads until the upload. The ETag an entity had when it was changed goes into the queue,
/// for the `If-Match` of the upload.
struct LocalWriter {
    let model: MetadataModel
    let schema: StoreSchema
    let dialect: Dialect
    /// Queued with the request: a `$batch` upload that groups by transaction sends requests with
    /// the same id in one change set, applied or refused together.
    var transactionID: String? = nil
    /// Queued with the request: false keeps it out of the queue's compaction (``QueueCompaction``).
    var mergeable: Bool = true
    /// The service root for the V4 context and V2 `__metadata.uri` of a create's answer.
    var serviceRoot: String = ""
    /// Kept across writes by the store (see ``CreatedEntityAnswers``); nil makes a new one per create.
    var answers: CreatedEntityAnswers? = nil
    /// Kept across writes by the store (see ``LocalWriteCache``); nil works everything out afresh.
    var cache: LocalWriteCache? = nil

    func write(_ request: ResolvedRequest, body: [UInt8]?, on db: SQLiteConnection) throws(ODataError) -> WriteOutcome {
        let method = request.method
        let url = request.url
        guard !method.isRead else {
            throw ODataError(.misuse, "'\(method.rawValue)' is not a write method (POST, PUT, PATCH, MERGE or DELETE)")
        }
        if method == .merge && dialect == .v4 {
            throw ODataError(.semantic, "MERGE is OData V2's partial update; a V4 store uses PATCH")
        }
        let path = try writablePath(request.boundForOfflineStore(), method: method)
        guard let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.internalError, "entity set '\(path.entitySet)' has no table")
        }
        let entityBody: EntityBody? = try body.map { bytes throws(ODataError) in
            try EntityBody(json: bytes, table: table, dialect: dialect)
        }
        return try db.transaction { () throws(ODataError) -> WriteOutcome in
            switch method {
            case .post:
                guard let entityBody else { throw ODataError(.misuse, "a create (POST) needs a body") }
                return try create(entityBody, in: table, url: url, body: body, on: db)
            case .delete:
                return try delete(path, in: table, url: url, on: db)
            default:
                guard let entityBody else { throw ODataError(.misuse, "an update (\(method.rawValue)) needs a body") }
                return try update(path, with: entityBody, replacing: method == .put, in: table, method: method,
                                  url: url, body: body, on: db)
            }
        }
    }

    /// The entity set (POST) or the single entity by key (the other methods) a write may address.
    private func writablePath(_ bound: BoundRequest, method: RequestMethod) throws(ODataError) -> BoundPath {
        switch bound.target {
        case .collection where method == .post:
            guard let path = bound.path, path.steps.isEmpty, path.rootKey == nil else {
                throw ODataError(.unsupported, "the offline store creates entities in an entity set, not through a navigation")
            }
            return path
        case .entity where method != .post:
            guard let path = bound.path, path.steps.isEmpty, path.rootKey != nil else {
                throw ODataError(.unsupported, "the offline store changes an entity addressed by its key, not through a navigation")
            }
            return path
        case .collection:
            throw ODataError(.semantic, "\(method.rawValue) needs one entity, addressed by its key")
        case .entity:
            throw ODataError(.semantic, "POST creates an entity in a collection, not at an entity's address")
        default:
            throw ODataError(.unsupported, "\(method.rawValue) of this resource is not supported offline")
        }
    }

    // MARK: - Create

    private func create(_ given: EntityBody, in table: EntitySetTable, url: String, body raw: [UInt8]?,
                        on db: SQLiteConnection) throws(ODataError) -> WriteOutcome {
        var body = given
        try ProvisionalKey.fill(&body, table: table, on: db)
        for column in table.columns where !column.isNullable && body.value(of: column) == nil
            && column.property.facets.defaultValue == nil && !table.keyColumns.contains(column) {
            throw ODataError(.constraint, "property '\(column.name)' cannot be null and has no default: the create must give it")
        }
        let cache = self.cache ?? LocalWriteCache()
        // A set without a key is refused here, as the key lookup below would refuse it.
        _ = try cache.existingRowSQL(in: table)
        let names = body.columnOrder
        // The insert runs first: the table's unique key index refuses a duplicate, and only then is
        // the key looked up, to say so in the model's words. (A key held by an entity deleted
        // locally is not "existing": the index's own refusal stands then, as before.)
        let id: Int64
        do throws(ODataError) {
            id = try db.withCachedStatement(cache.insertSQL(into: table, columns: names)) { insert throws(ODataError) -> Int64 in
                var values: [SQLValue] = []
                values.reserveCapacity(names.count + 1)
                for name in names { if let value = body.values[name] { values.append(value) } }
                values.append(.text(LocalChange.created.rawValue))
                try insert.run(values)
                return db.lastInsertRowID
            }
        } catch let error where error.code == .constraint {
            if try existingRow(key: table.keyColumns.map { body.value(of: $0) ?? .null }, in: table, on: db) != nil {
                throw ODataError(.constraint, "an entity with this key already exists in \(table.entitySet)")
            }
            throw error
        }
        // The answer is read back by rowid rather than through the insert's RETURNING, which makes
        // SQLite build and drop a temporary table for every row.
        let answer = try db.withCachedStatement(cache.createdRowSQL(in: table)) { select throws(ODataError) -> [UInt8] in
            try select.bind([.integer(id)])
            guard try select.step() else { throw ODataError(.internalError, "the created entity was not found") }
            return try (answers ?? CreatedEntityAnswers()).body(of: select, table: table, model: model, dialect: dialect,
                                                                serviceRoot: serviceRoot)
        }
        let queueID = try RequestQueueTable.append(QueuedRequest(
            method: .post, url: url, body: raw.map { String(decoding: $0, as: UTF8.self) },
            entitySet: table.entitySet, entityID: id, contentID: "ood\(id)", transactionID: transactionID, mergeable: mergeable), in: db)
        let key = table.keyColumns.map { (value: body.value(of: $0) ?? .null, column: $0) }
        let location = key.contains { $0.value == .null } ? nil
            : serviceRoot + table.entitySet + KeyPredicateText.predicate(key, dialect: dialect)
        return WriteOutcome(status: 201, entitySet: table.entitySet, entityID: id, queueID: queueID, body: answer,
                            location: location)
    }

    // MARK: - Update and delete

    private func update(_ path: BoundPath, with body: EntityBody, replacing: Bool, in table: EntitySetTable, method: RequestMethod,
                        url: String, body raw: [UInt8]?, on db: SQLiteConnection) throws(ODataError) -> WriteOutcome {
        let row = try requireRow(path, in: table, on: db)
        if row.isSynced { try OriginalValues.save(entityID: row.id, of: table, on: db) }
        for (column, current) in zip(table.keyColumns, row.key) {
            if let given = body.value(of: column), given != current {
                throw ODataError(.constraint, "the key property '\(column.name)' cannot be changed")
            }
        }
        var assignments = try body.assignments(in: table)
        if replacing {
            // PUT replaces the entity: what the body leaves out becomes null.
            for column in table.columns where body.value(of: column) == nil && !table.keyColumns.contains(column) {
                try EntityBody.check(.null, against: column)
                assignments.append(.null(column))
            }
        }
        var sets = assignments.enumerated().map { "\($0.element.quotedColumn) = ?\($0.offset + 1)" }
        sets.append("\"_ood_change\" = COALESCE(\"_ood_change\", '\(LocalChange.updated.rawValue)')")
        let statement = try db.prepare("UPDATE \(table.quotedName) SET \(sets.joined(separator: ", ")) WHERE \"_ood_id\" = ?\(assignments.count + 1)")
        try statement.run(assignments.map(\.value) + [.integer(row.id)])
        let queueID = try RequestQueueTable.append(QueuedRequest(
            method: method, url: url, body: raw.map { String(decoding: $0, as: UTF8.self) },
            entitySet: table.entitySet, entityID: row.id, etag: row.etag, transactionID: transactionID, mergeable: mergeable), in: db)
        return WriteOutcome(status: 204, entitySet: table.entitySet, entityID: row.id, queueID: queueID)
    }

    private func delete(_ path: BoundPath, in table: EntitySetTable, url: String, on db: SQLiteConnection) throws(ODataError) -> WriteOutcome {
        let row = try requireRow(path, in: table, on: db)
        if row.isSynced { try OriginalValues.save(entityID: row.id, of: table, on: db) }
        try db.prepare("UPDATE \(table.quotedName) SET \"_ood_change\" = ?1 WHERE \"_ood_id\" = ?2")
            .run([.text(LocalChange.deleted.rawValue), .integer(row.id)])
        let queueID = try RequestQueueTable.append(QueuedRequest(
            method: .delete, url: url, entitySet: table.entitySet, entityID: row.id, etag: row.etag, transactionID: transactionID,
            mergeable: mergeable), in: db)
        return WriteOutcome(status: 204, entitySet: table.entitySet, entityID: row.id, queueID: queueID)
    }

    // MARK: - Finding the entity

    private struct Row {
        var id: Int64
        var etag: String?
        var key: [SQLValue]
        /// No local change pending: the row holds what the service last sent.
        var isSynced: Bool
    }

    private func requireRow(_ path: BoundPath, in table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Row {
        guard let row = try existingRow(key: table.keyValues(of: path), in: table, on: db) else {
            throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store")
        }
        return row
    }

    /// The entity with this key that is not deleted locally, if the store has it.
    private func existingRow(key: [SQLValue], in table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Row? {
        return try db.withCachedStatement(try (self.cache ?? LocalWriteCache()).existingRowSQL(in: table)) {
            select throws(ODataError) -> Row? in
            try select.bind(key)
            guard try select.step() else { return nil }
            return Row(id: select.int(at: 0), etag: select.text(at: 1), key: key, isSynced: select.int(at: 2) != 0)
        }
    }
}

extension SQLValue {
    /// A bound literal in its stored form.
    init(bound value: BoundValue) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .text(let text): self = .text(text)
        case .bytes(let bytes): self = .blob(bytes)
        }
    }
}
