/// Indexes beyond the key's: declared by the app, listed with their origin.
extension LocalStore {
    /// Makes the indexes `declarations` ask for that the store does not have yet, and records them
    /// as declared; indexes made before stay (declaring fewer drops none). Every declaration is
    /// checked before any index is made, and all are made in one transaction, so a bad one changes
    /// nothing. Making an index reads the whole table once (seconds at ten million entities).
    ///
    /// - Throws: ``ODataError/Code/misuse`` naming a declaration that does not fit the model.
    package func declareIndexes(_ declarations: [IndexDeclaration]) throws(ODataError) {
        guard !declarations.isEmpty else { return }
        var resolved: [ResolvedIndex] = []
        for declaration in declarations { resolved.append(try declaration.resolved(in: schema)) }
        // Each open declares them again: those the file has as declared need no write.
        let declared = Set(try indexes().filter { $0.origin == .declared }.map(\.name))
        let missing = resolved.filter { !declared.contains($0.name) }
        guard !missing.isEmpty else { return }
        try make(missing, origin: .declared) { _ in IndexDeclaration.declaredReason }
    }

    /// The indexes the store made beyond its key's (declared and automatic), by entity set.
    package func indexes() throws(ODataError) -> [StoreIndex] {
        try file.withReadConnection { db, _ throws(ODataError) in try IndexTable.all(in: db) }
    }

    /// Creates and records `indexes` in one transaction, then refreshes the statistics of their
    /// tables so plans weigh the new index.
    func make(_ indexes: [ResolvedIndex], origin: StoreIndex.Origin, reason: (ResolvedIndex) -> String) throws(ODataError) {
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                for index in indexes {
                    try db.execute(index.createStatement)
                    try IndexTable.record(index, origin: origin, reason: reason(index), in: db)
                }
            }
            var sets: [String] = []
            for index in indexes where !sets.contains(index.table.entitySet) { sets.append(index.table.entitySet) }
            try StoreStatistics.refresh(entitySets: sets, schema: schema, on: db)
        }
    }
}
