/// Writes the entities of one page as ``PageReader`` finishes them, in order: for each, the
/// upsert, the membership of the defining request, and the links of its expanded navigations;
/// or, for a deleted entry of a delta, the removal.
struct EntityWriter {
    let session: IngestSession

    init(session: IngestSession) { self.session = session }

    /// Writes the page's next entity; returns its local id (for the links of the entity it is
    /// nested in: a navigation's entities are written before the entity holding them), or nil
    /// for removed and ignored entries.
    func write(_ entity: EntityState, summary: inout PageSummary) throws(ODataError) -> Int64? {
        guard !entity.isIgnored else { return nil }
        if hasKeyProperties(entity) { return try store(entity, summary: &summary) }
        // Without its key properties an entity takes them from its id, in a copy: the page's
        // entity stays as it was read.
        var completed = entity
        guard try takeKey(fromID: &completed) else {
            if entity.isRemoved {
                summary.removed += 1
                return nil
            }
            let plan = entity.plan
            let missing = plan.keyIndices.map { plan.table.columns[$0].name }.joined(separator: ", ")
            throw ODataError(.semantic, "an entity of '\(plan.table.entitySet)' has no value for its key (\(missing)) and no id to take it from")
        }
        return try store(completed, summary: &summary)
    }

    /// Removes or writes an entity that has its key values: a new row of a table that held
    /// nothing joins the batch (``FreshRows``), anything else is upserted now.
    private func store(_ state: EntityState, summary: inout PageSummary) throws(ODataError) -> Int64? {
        let plan = state.plan
        if state.isRemoved {
            try session.flushFreshRows()
            // A removal finds the row by its key: through the index.
            try plan.indexKeys(in: session.db)
            try EntityRemoval(session: session).removeEntity(withKey: key(of: state), from: plan)
            summary.removed += 1
            return nil
        }
        if session.batchesFreshRows, let id = try plan.takeFreshID() {
            if !plan.keepsKeysIncreasing(state) {
                // A key that does not grow may repeat one: the rows written so far get their key
                // index, and this one is matched by its key when its batch is written.
                try session.flushFreshRows()
                try plan.indexKeys(in: session.db)
            }
            if !session.freshRows.accepts(state) { try session.flushFreshRows() }
            session.freshRows.append(state, id: id, leading: leading(state), columns: plan.presentColumns(for: state.mask))
            summary.entities += 1
            return id
        }
        try session.flushFreshRows()
        try plan.indexKeys(in: session.db)
        let id = try upsert(state)
        try session.addMembership(plan, entityID: id)
        try announceMediaETags(of: state, entityID: id)
        summary.entities += 1
        for (navigation, nested) in state.navigations where navigation.recordsLinks {
            let complete = nested.isComplete && !state.partialNavigations.contains(navigation.name)
            try writeLinks(from: id, in: plan.table.entitySet, navigation: navigation, targets: nested.ids, replacing: complete)
        }
        return id
    }

    /// Records, with each stream the store has of the entity, the media ETag this payload
    /// announced for it or that it announced none (``StreamTable/announce(_:entitySet:entityID:property:in:)``).
    /// Not for rows of a table that held nothing (fresh or staged): no stream of theirs is recorded.
    private func announceMediaETags(of state: EntityState, entityID: Int64) throws(ODataError) {
        let names = state.plan.streamNames
        guard !names.isEmpty, session.recordsMemberships else { return }
        for name in names {
            try StreamTable.announce(state.mediaETags?[name], entitySet: state.plan.table.entitySet, entityID: entityID,
                                     property: name, in: session.db)
        }
    }

    /// Upserts one entity by its key; its local id.
    private func upsert(_ state: EntityState) throws(ODataError) -> Int64 {
        let plan = state.plan
        let upsert = try plan.upsert(for: state.mask)
        // Parameters: `_ood_type` and `_ood_etag` when given (their presence bits are set with
        // them, see ``EntityState/etag``), then the present property columns in column order.
        let leading = leading(state)
        let columns = upsert.columns
        let values = state.values
        return try plan.write(upsert, count: leading.count + columns.count, parameter: { position in
            position < leading.count ? leading[position] : values[columns[position - leading.count]]
        }, key: { key(of: state) })
    }

    /// `_ood_type` and `_ood_etag` when the payload gave them, in that order.
    private func leading(_ state: EntityState) -> [SQLValue] {
        var leading: [SQLValue] = []
        if let typeName = state.typeName { leading.append(storedType(typeName, plan: state.plan)) }
        if let etag = state.etag { leading.append(.text(etag)) }
        return leading
    }

    /// The key's stored values (the entity has them all).
    private func key(of state: EntityState) -> [SQLValue] {
        state.plan.keyIndices.map { state.values[$0] }
    }

    /// Whether the payload gave every key property a value.
    private func hasKeyProperties(_ state: EntityState) -> Bool {
        let plan = state.plan
        return plan.keyIndices.allSatisfy { index in
            guard plan.isSet(state.mask, index) else { return false }
            if case .null = state.values[index] { return false }
            return true
        }
    }

    /// Puts the key values the entity's id names (`Customers('ALFKI')`) into `state`, so the
    /// upsert writes them; false when the id does not give all of them.
    private func takeKey(fromID state: inout EntityState) throws(ODataError) -> Bool {
        let plan = state.plan
        let columns = plan.table.columns
        guard let text = state.id, let identifier = EntityIdentifier(text) else { return false }
        var derived: [(index: Int, value: SQLValue)] = []
        for (position, index) in plan.keyIndices.enumerated() {
            let column = columns[index]
            let named = identifier.keyValues.first { $0.name == column.name }
            let positional = identifier.keyValues.count == plan.keyIndices.count && identifier.keyValues[position].name == nil
                ? identifier.keyValues[position] : nil
            guard let literal = named ?? positional else { return false }
            let value: SQLValue
            do {
                value = try EDMValueCodec.storedValue(fromJSON: .string(literal.text), column: column, dialect: session.dialect)
            } catch {
                throw ODataError(error.code, "entity set '\(plan.table.entitySet)', id '\(text)': \(error.message)")
            }
            derived.append((index, value))
        }
        for (index, value) in derived { state.set(index, value) }
        return true
    }

    /// `_ood_type`: the qualified name of a type derived from the set's type; NULL for the set's own type.
    private func storedType(_ annotation: String, plan: TablePlan) -> SQLValue {
        let name = session.model.qualifiedName(annotation.hasPrefix("#") ? String(annotation.dropFirst()) : annotation)
        return name == plan.table.entityType ? .null : .text(name)
    }

    /// `ood_link` rows for an expanded navigation without referential constraint. A complete list
    /// replaces the source's links for that navigation; a partial one (nested next link) only adds.
    private func writeLinks(from sourceID: Int64, in sourceSet: String, navigation: ExpandedNavigation, targets: [Int64],
                            replacing: Bool) throws(ODataError) {
        if replacing {
            let delete = try session.statement("DELETE FROM ood_link WHERE source_set = ?1 AND navigation = ?2 AND source_id = ?3")
            try delete.run([.text(sourceSet), .text(navigation.name), .integer(sourceID)])
        }
        guard !targets.isEmpty else { return }
        let insert = try session.statement("""
            INSERT OR IGNORE INTO ood_link (source_set, source_id, navigation, target_set, target_id)
            VALUES (?1, ?2, ?3, ?4, ?5)
            """)
        for target in targets {
            try insert.run([.text(sourceSet), .integer(sourceID), .text(navigation.name), .text(navigation.node.entitySet), .integer(target)])
        }
    }
}
