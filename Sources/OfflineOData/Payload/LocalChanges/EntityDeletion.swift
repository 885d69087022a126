/// Removes an entity from the store for good: its row, its membership in defining requests, its
/// links and its saved synced values. For a delete the service accepted, and for an undo of a
/// create; the caller holds the transaction.
enum EntityDeletion {
    static func delete(entityID id: Int64, from table: EntitySetTable, on db: SQLiteConnection) throws(ODataError) {
        let entity: [SQLValue] = [.text(table.entitySet), .integer(id)]
        try db.prepare("DELETE FROM \(table.quotedName) WHERE \"_ood_id\" = ?1").run([.integer(id)])
        try db.prepare("""
            DELETE FROM ood_membership
            WHERE defining_request IN (\(MembershipTable.holdingRequests)) AND entity_set = ?1 AND entity_id = ?2
            """).run(entity)
        try db.prepare("DELETE FROM ood_link WHERE (source_set = ?1 AND source_id = ?2) OR (target_set = ?1 AND target_id = ?2)").run(entity)
        try OriginalValues.forget(entitySet: table.entitySet, entityID: id, on: db)
    }
}
