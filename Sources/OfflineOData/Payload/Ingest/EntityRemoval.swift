/// Takes entities out of a defining request: a delta's deleted entries, and after a full download
/// whatever the request no longer returned.
///
/// The rule: the entity loses this defining request's membership; it is deleted (with its
/// `ood_link` rows, both directions) only when no other defining request holds it and it has no
/// pending local change. A locally changed entity stays, so its queued change can still be
/// uploaded (and a conflict reported) later.
struct EntityRemoval {
    let session: IngestSession

    /// A delta's deleted entry, found by its key. Unknown entities are no error: the delta may
    /// report deletions of entities this store never held.
    func removeEntity(withKey key: [SQLValue], from plan: TablePlan) throws(ODataError) {
        try session.flushMemberships()
        let condition = plan.table.keyColumns.enumerated().map { "\($0.element.quotedName) = ?\($0.offset + 1)" }
        let find = try session.statement("SELECT \"_ood_id\" FROM \(plan.table.quotedName) WHERE \(condition.joined(separator: " AND "))")
        try find.bind(key)
        guard try find.step() else { return }
        let id = find.int(at: 0)
        while try find.step() {}
        try dropMembership(entitySet: plan.table.entitySet, id: id)
        plan.seen.remove(id)
        try deleteIfOrphaned(entitySet: plan.table.entitySet, id: id)
    }

    /// After a full download: the memberships of this request that the session did not write.
    func removeUnseenMemberships() throws(ODataError) {
        try session.flushMemberships()
        // Every membership this session wrote is one it saw; when they are all there is, none is
        // stale: known without counting when the request held nothing before the session.
        if session.heldEntitiesBefore == false { return }
        let held = try session.db.scalarInt("SELECT count(*) FROM ood_membership WHERE defining_request = ?1",
                                            [.text(session.definingRequest.name)]) ?? 0
        if held == session.plans.values.reduce(0, { $0 + Int64($1.seen.count) }) { return }
        // Set by set, so that each of the (many) rows is only an integer to look up.
        let sets = try session.statement("SELECT DISTINCT entity_set FROM ood_membership WHERE defining_request = ?1")
        try sets.bind([.text(session.definingRequest.name)])
        var entitySets: [String] = []
        while try sets.step() { entitySets.append(sets.text(at: 0) ?? "") }
        let select = try session.statement("SELECT entity_id FROM ood_membership WHERE defining_request = ?1 AND entity_set = ?2")
        var stale: [(entitySet: String, id: Int64)] = []
        for entitySet in entitySets {
            let seen = session.seenIDs(in: entitySet) ?? EntityIDSet()
            try select.bind([.text(session.definingRequest.name), .text(entitySet)])
            while try select.step() {
                let id = select.int(at: 0)
                if !seen.contains(id) { stale.append((entitySet, id)) }
            }
        }
        for entry in stale {
            try dropMembership(entitySet: entry.entitySet, id: entry.id)
            try deleteIfOrphaned(entitySet: entry.entitySet, id: entry.id)
        }
    }

    private func dropMembership(entitySet: String, id: Int64) throws(ODataError) {
        let delete = try session.statement("DELETE FROM ood_membership WHERE entity_set = ?1 AND entity_id = ?2 AND defining_request = ?3")
        try delete.run([.text(entitySet), .integer(id), .text(session.definingRequest.name)])
    }

    /// Deletes the row when nothing holds it any more and it has no pending change, then its links.
    private func deleteIfOrphaned(entitySet: String, id: Int64) throws(ODataError) {
        // A set dropped from the schema leaves memberships behind; they no longer have a table.
        guard let table = session.schema.table(forEntitySet: entitySet) else { return }
        let delete = try session.statement("""
            DELETE FROM \(table.quotedName) WHERE "_ood_id" = ?1 AND "_ood_change" IS NULL
              AND NOT \(MembershipTable.isHeld(entitySet: "?2", entityID: "?1"))
            RETURNING "_ood_id"
            """)
        try delete.bind([.integer(id), .text(entitySet)])
        var deleted = false
        while try delete.step() { deleted = true }
        guard deleted else { return }
        let links = try session.statement("""
            DELETE FROM ood_link WHERE (source_set = ?1 AND source_id = ?2) OR (target_set = ?1 AND target_id = ?2)
            """)
        try links.run([.text(entitySet), .integer(id)])
    }
}
