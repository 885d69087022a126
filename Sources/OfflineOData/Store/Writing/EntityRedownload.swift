/// What a re-download did to an entity.
public struct RedownloadOutcome: Sendable, Equatable {
    public enum Action: String, Sendable {
        /// The entity's row has the service's values and ETag now.
        case updated
        /// The service answered 404: the entity left the store.
        case removed
    }

    public var entitySet: String
    public var action: Action

    public init(entitySet: String, action: Action) {
        self.entitySet = entitySet
        self.action = action
    }
}

/// Reads one entity from the service again and gives the store the service's version of it: after
/// a user discarded or resolved an archived request, or whenever they want what the service has
/// now. The entity is addressed by its key, like an undo (``LocalUndo``).
///
/// A re-download never drops a user's change: an entity with queued or archived requests is
/// refused, before the read and again in the transaction that writes the answer (a write may
/// have come in while the service was asked).
///
/// In two steps, so that no transaction stays open during the HTTP read: ``locate(url:on:)``
/// finds the entity, the caller reads it (``ServedEntity/read(entityID:of:dialect:serviceRoot:transport:file:cancellation:)``),
/// ``apply(_:entityID:of:on:)`` writes the answer in one transaction.
struct EntityRedownload {
    let model: MetadataModel
    let schema: StoreSchema
    let dialect: Dialect

    /// Columns per UPDATE statement, well below SQLite's limit on bound parameters.
    private static let columnsPerStatement = 200

    /// The table and local id of the entity `url` addresses by its key.
    /// - Throws: ``ODataError/Code/semantic`` for a URL that is not one entity by key;
    ///   ``ODataError/Code/notFound`` when the store does not have it; ``ODataError/Code/misuse``
    ///   when it has queued or archived requests.
    func locate(url: String, on db: SQLiteConnection) throws(ODataError) -> (table: EntitySetTable, entityID: Int64) {
        let bound = try ODataBinder(model: model, dialect: dialect).bind(ODataURLParser(dialect: dialect).parse(url))
        guard case .entity = bound.target, let path = bound.path, path.steps.isEmpty, path.rootKey != nil else {
            throw ODataError(.semantic, "a re-download addresses one entity by its key, like TravelagencyCollection('00000001')")
        }
        guard let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.internalError, "entity set '\(path.entitySet)' has no table")
        }
        guard let id = try LocalUndo.entityID(key: table.keyValues(of: path), in: table, on: db) else {
            throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store")
        }
        try Self.requireNoRequests(entityID: id, of: table, on: db)
        return (table, id)
    }

    /// Writes what the service answered for the entity `entityID`, in one transaction: its values
    /// and ETag (nil: the service answered 404, the entity leaves the store). The row keeps its
    /// `_ood_id`, so its links and memberships stay; its change and error marks and its saved
    /// synced values go.
    func apply(_ served: ServedEntity?, entityID id: Int64, of table: EntitySetTable,
               on db: SQLiteConnection) throws(ODataError) -> RedownloadOutcome {
        try db.transaction { () throws(ODataError) -> RedownloadOutcome in
            guard try table.storedKey(entityID: id, in: db) != nil else {
                throw ODataError(.notFound, "\(table.entitySet): the entity left the store while it was read from the service")
            }
            try Self.requireNoRequests(entityID: id, of: table, on: db)
            guard let served else {
                try EntityDeletion.delete(entityID: id, from: table, on: db)
                return RedownloadOutcome(entitySet: table.entitySet, action: .removed)
            }
            let given = table.columns.compactMap { column in served.value(of: column).map { (column, $0) } }
            for start in stride(from: 0, to: given.count, by: Self.columnsPerStatement) {
                let part = given[start..<min(start + Self.columnsPerStatement, given.count)]
                let sets = part.enumerated().map { "\($0.element.0.quotedName) = ?\($0.offset + 2)" }
                try db.prepare("UPDATE \(table.quotedName) SET \(sets.joined(separator: ", ")) WHERE \"_ood_id\" = ?1")
                    .run([.integer(id)] + part.map(\.1))
            }
            try db.prepare("""
                UPDATE \(table.quotedName) SET "_ood_etag" = ?2, "_ood_change" = NULL, "_ood_error" = 0 WHERE "_ood_id" = ?1
                """).run([.integer(id), served.etag.map { SQLValue.text($0) } ?? .null])
            try OriginalValues.forget(entitySet: table.entitySet, entityID: id, on: db)
            return RedownloadOutcome(entitySet: table.entitySet, action: .updated)
        }
    }

    /// Refuses an entity with queued or archived requests: the re-download would drop its change.
    private static func requireNoRequests(entityID id: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) {
        guard try RequestQueueTable.earliestRequestID(entitySet: table.entitySet, entityID: id, in: db) == nil else {
            throw ODataError(.misuse, "\(table.entitySet): the entity has queued or archived requests: "
                             + "upload, discard or undo them first")
        }
    }
}
