/// What an undo did to an entity.
public struct UndoOutcome: Sendable, Equatable {
    public enum Action: String, Sendable {
        /// The entity was created offline: it is gone, as if never created.
        case removed
        /// The entity has the values the service last sent again.
        case restored
        /// The entity's changes were dropped, but its synced values had not been kept (it was
        /// changed by an engine older than store format 3): the next download brings them.
        case unmarked
        /// The entity had no local change and no refused request.
        case nothing
    }

    public var entitySet: String
    public var action: Action
    /// How many requests on the entity left the request queue and the error archive.
    public var droppedRequests: Int
}

/// Reverts an entity's local changes, as SAP Offline OData's "undo pending changes" does: its
/// requests leave the request queue (and the error archive, for a change the service refused),
/// and the entity gets back what the service last sent, or disappears if it was created offline.
/// One transaction; the entity is addressed by its key, like an update.
///
/// Requests on other entities that build on this one (a booking created offline for an agency
/// created offline) are not followed: undo them first.
struct LocalUndo {
    let model: MetadataModel
    let schema: StoreSchema
    let dialect: Dialect

    func undo(url: String, on db: SQLiteConnection) throws(ODataError) -> UndoOutcome {
        let bound = try ODataBinder(model: model, dialect: dialect).bind(ODataURLParser(dialect: dialect).parse(url))
        guard case .entity = bound.target, let path = bound.path, path.steps.isEmpty, path.rootKey != nil else {
            throw ODataError(.semantic, "an undo addresses one entity by its key, like TravelagencyCollection('00000001')")
        }
        guard let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.internalError, "entity set '\(path.entitySet)' has no table")
        }
        let key = table.keyValues(of: path)
        return try db.transaction { () throws(ODataError) -> UndoOutcome in
            guard let id = try Self.entityID(key: key, in: table, on: db) else {
                throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store")
            }
            return try Self.revert(entityID: id, of: table, on: db)
        }
    }

    /// Drops every request on the entity, queued or archived, and gives it back what the service
    /// last sent (or removes it, if it was created offline); clears its change and error marks.
    /// The caller holds the transaction. An undo, and the discard of an entity's earliest archived
    /// request (``ErrorArchiveActions``), do this.
    static func revert(entityID id: Int64, of table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> UndoOutcome {
        let dropped = try RequestQueueTable.dropRequests(entitySet: table.entitySet, entityID: id, in: db)
        let action: UndoOutcome.Action
        if dropped.contains(.post) {
            try EntityDeletion.delete(entityID: id, from: table, on: db)
            action = .removed
        } else if try OriginalValues.restore(entityID: id, of: table, on: db) {
            action = .restored
        } else {
            action = dropped.isEmpty ? .nothing : .unmarked
        }
        if action != .removed {
            try db.prepare("UPDATE \(table.quotedName) SET \"_ood_change\" = NULL, \"_ood_error\" = 0 WHERE \"_ood_id\" = ?1")
                .run([.integer(id)])
        }
        return UndoOutcome(entitySet: table.entitySet, action: action, droppedRequests: dropped.count)
    }

    /// The entity with this key; one that is changed or in error first (a key deleted offline and
    /// created again has two rows: the newer one is undone first). A re-download
    /// (``EntityRedownload``) finds its entity so too.
    static func entityID(key: [SQLValue], in table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) -> Int64? {
        let select = try db.prepare("""
            SELECT "_ood_id" FROM \(table.quotedName) WHERE \(try table.keyCondition())
            ORDER BY "_ood_change" IS NULL AND "_ood_error" = 0, "_ood_id" DESC LIMIT 1
            """)
        try select.bind(key)
        return try select.step() ? select.int(at: 0) : nil
    }
}
