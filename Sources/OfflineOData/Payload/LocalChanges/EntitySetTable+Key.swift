/// Addressing one stored entity by its key, as writes and undo do (`TravelagencyCollection('1')`).
extension EntitySetTable {
    /// The stored values of the key `path` gives, in key order (NULL for a key property it lacks).
    func keyValues(of path: BoundPath) -> [SQLValue] {
        let given = path.rootKey ?? []
        return keyColumns.map { column in
            given.first { $0.property == column.name }.map { SQLValue(bound: $0.value) } ?? .null
        }
    }

    /// `"k1" = ?1 AND "k2" = ?2 ...`: the key values are the statement's first parameters.
    /// - Throws: ``ODataError/Code/unsupported`` for a set without a key.
    func keyCondition() throws(ODataError) -> String {
        guard !keyColumns.isEmpty else {
            throw ODataError(.unsupported, "\(entitySet) has no key, so its entities cannot be addressed")
        }
        return keyColumns.enumerated().map { "\($0.element.quotedName) = ?\($0.offset + 1)" }.joined(separator: " AND ")
    }

    /// The key the store has for the entity `entityID`, in key order; nil when it has no such row.
    func storedKey(entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> [SQLValue]? {
        guard !keyColumns.isEmpty else { return nil }
        let select = keyColumns.map(\.quotedName).joined(separator: ", ")
        return try db.withCachedStatement("SELECT \(select) FROM \(quotedName) WHERE \"_ood_id\" = ?1") {
            row throws(ODataError) -> [SQLValue]? in
            try row.bind([.integer(entityID)])
            guard try row.step() else { return nil }
            return keyColumns.indices.map { row.value(at: $0) }
        }
    }
}
