/// The alternate keys a create in doubt is read back by (docs/CONFLICTS.md, "Creates in doubt").
extension LocalStore {
    /// Every set's alternate keys, the app's (kept in the store) before the model's
    /// (`Core.AlternateKeys`); sets without one are left out.
    package func alternateKeys() throws(ODataError) -> [String: [[String]]] {
        let keys = try file.withConnection { db throws(ODataError) in try AlternateKeys.load(model: schema.model, in: db) }
        var all: [String: [[String]]] = [:]
        for table in schema.tables {
            let set = (keys.declared[table.entitySet] ?? []) + schema.model.alternateKeys(entitySet: table.entitySet)
            if !set.isEmpty { all[table.entitySet] = set }
        }
        return all
    }

    /// Declares `properties` (property paths, `/` between steps) unique per entity in `entitySet`:
    /// the set's key for reading back a create whose answer was lost. An empty list forgets the
    /// set's declaration.
    /// - Throws: ``ODataError/Code/notFound`` for a set the store does not have;
    ///   ``ODataError/Code/semantic`` for a property that is not one stored value of the set.
    package func setAlternateKey(_ properties: [String], entitySet: String) throws(ODataError) -> [String: [[String]]] {
        try file.requireWritable()
        guard let table = schema.table(forEntitySet: entitySet) else {
            throw ODataError(.notFound, "the store has no entity set '\(entitySet)' to declare an alternate key for")
        }
        for property in properties where table.column(named: property) == nil {
            throw ODataError(.semantic, "\(entitySet) has no property '\(property)' stored as one value to read entities by")
        }
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                var declared = try AlternateKeys.load(model: schema.model, in: db).declared
                declared[entitySet] = properties.isEmpty ? nil : [properties]
                let text = AlternateKeys.text(declared)
                try StoreInfoTable.setValue(text.isEmpty ? nil : text, for: AlternateKeys.storeKey, in: db)
            }
        }
        return try alternateKeys()
    }
}
