internal import CSQLite

/// Writes the read entities of one page, in order: for each, the upsert, the membership of the
/// defining request, and the links of its expanded navigations; or, for a deleted entry of a
/// delta, the removal.
struct EntityWriter {
    let session: IngestSession
    /// The local id (`_ood_id`) of each entity written so far, by its position in the page; nil
    /// for removed and ignored entries. A navigation's entities come before the entity holding
    /// them, so their ids are known when its links are written.
    private var writtenIDs: [Int64?] = []

    init(session: IngestSession) { self.session = session }

    /// Writes the page's next entity.
    mutating func write(_ state: inout EntityState, summary: inout PageSummary) throws(ODataError) {
        writtenIDs.append(try finish(&state, summary: &summary))
    }

    /// The entity's local id, or nil for removed and ignored entries.
    private func finish(_ state: inout EntityState, summary: inout PageSummary) throws(ODataError) -> Int64? {
        guard !state.isIgnored else { return nil }
        let plan = state.plan
        if state.isRemoved {
            if let key = try keyValues(&state) {
                try EntityRemoval(session: session).removeEntity(withKey: key, from: plan)
            }
            summary.removed += 1
            return nil
        }
        guard let key = try keyValues(&state) else {
            let missing = plan.keyIndices.map { plan.table.columns[$0].name }.joined(separator: ", ")
            throw ODataError(.semantic, "an entity of '\(plan.table.entitySet)' has no value for its key (\(missing)) and no id to take it from")
        }
        var parameters = plan.parameters
        plan.parameters = []
        parameters.removeAll(keepingCapacity: true)
        defer { plan.parameters = parameters }
        // Their presence bits are set with them (``EntityState/etag``).
        if let typeName = state.typeName { parameters.append(storedType(typeName, plan: plan)) }
        if let etag = state.etag { parameters.append(.text(etag)) }
        for index in state.values.indices where plan.isSet(state.mask, index) {
            parameters.append(state.values[index])
        }
        let upsert = try plan.upsert(for: state.mask)
        guard let handle = session.db.handle else { throw ODataError(.misuse, "the store is closed") }
        // A fresh row sets the last insert rowid; an updated one leaves it at 0 (rowids start at 1).
        sqlite3_set_last_insert_rowid(handle, 0)
        try upsert.run(parameters)
        var id = sqlite3_last_insert_rowid(handle)
        if id == 0 {
            let find = try plan.findByKey()
            try find.bind(key)
            guard try find.step() else {
                throw ODataError(.internalError, "the upserted entity of '\(plan.table.entitySet)' cannot be found by its key")
            }
            id = find.int(at: 0)
            while try find.step() {}
        }
        try session.addMembership(plan, entityID: id)
        summary.entities += 1
        for (navigation, nested) in state.navigations where navigation.recordsLinks {
            let complete = nested.isComplete && !state.partialNavigations.contains(navigation.name)
            let targets = nested.positions.compactMap { $0 < writtenIDs.count ? writtenIDs[$0] : nil }
            try writeLinks(from: id, in: plan.table.entitySet, navigation: navigation, targets: targets, replacing: complete)
        }
        return id
    }

    /// The key's stored values: from the payload's key properties, else from the entity's id
    /// (`Customers('ALFKI')`); nil when neither gives all of them. Values from the id are also
    /// put into `state`, so the upsert writes them.
    private func keyValues(_ state: inout EntityState) throws(ODataError) -> [SQLValue]? {
        let plan = state.plan
        let columns = plan.table.columns
        if plan.keyIndices.allSatisfy({ plan.isSet(state.mask, $0) && state.values[$0] != .null }) {
            return plan.keyIndices.map { state.values[$0] }
        }
        guard let text = state.id, let identifier = EntityIdentifier(text) else { return nil }
        var key: [SQLValue] = []
        for (position, index) in plan.keyIndices.enumerated() {
            let column = columns[index]
            let named = identifier.keyValues.first { $0.name == column.name }
            let positional = identifier.keyValues.count == plan.keyIndices.count && identifier.keyValues[position].name == nil
                ? identifier.keyValues[position] : nil
            guard let literal = named ?? positional else { return nil }
            let value: SQLValue
            do {
                value = try EDMValueCodec.storedValue(fromJSON: .string(literal.text), column: column, dialect: session.dialect)
            } catch {
                throw ODataError(error.code, "entity set '\(plan.table.entitySet)', id '\(text)': \(error.message)")
            }
            state.set(index, value)
            key.append(value)
        }
        return key
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
