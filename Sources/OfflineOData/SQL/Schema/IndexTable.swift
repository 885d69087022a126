/// One index the store made beyond its key's, as ``LocalStore/indexes()`` and status list it.
public struct StoreIndex: Sendable, Equatable {
    /// Why the index is there.
    public enum Origin: String, Sendable {
        /// The app asked for it (``IndexDeclaration``).
        case declared
        /// The engine made it from the reads it saw.
        case automatic
    }

    public var entitySet: String
    public var properties: [String]
    /// The SQLite index's name, as `explain`'s plan names it.
    public var name: String
    public var origin: Origin
    /// Why it was made, in words.
    public var reason: String
    /// When it was made (UTC, ISO 8601).
    public var createdAt: String
}

/// The `ood_index` table: the indexes made beyond the key's, with their origin and reason.
enum IndexTable {
    static func all(in db: SQLiteConnection) throws(ODataError) -> [StoreIndex] {
        let statement = try db.prepare(
            "SELECT entity_set, properties, name, origin, reason, created_at FROM ood_index ORDER BY entity_set, properties")
        try statement.bind([])
        var result: [StoreIndex] = []
        while try statement.step() {
            let properties = (statement.text(at: 1) ?? "").split(separator: ",").map(String.init)
            result.append(StoreIndex(entitySet: statement.text(at: 0) ?? "", properties: properties, name: statement.text(at: 2) ?? "",
                                     origin: StoreIndex.Origin(rawValue: statement.text(at: 3) ?? "") ?? .declared,
                                     reason: statement.text(at: 4) ?? "", createdAt: statement.text(at: 5) ?? ""))
        }
        return result
    }

    /// Records `index` (made just before, in the same transaction). A declaration replaces an
    /// automatic index on the same properties (the app now wants it); an automatic one never
    /// replaces a declared one.
    static func record(_ index: ResolvedIndex, origin: StoreIndex.Origin, reason: String, in db: SQLiteConnection) throws(ODataError) {
        let key: [SQLValue] = [.text(index.declaration.entitySet), .text(index.declaration.properties.joined(separator: ","))]
        let existing = try db.scalarText("SELECT origin FROM ood_index WHERE entity_set = ?1 AND properties = ?2", key)
        if existing == StoreIndex.Origin.declared.rawValue || (existing != nil && origin == .automatic) { return }
        try db.prepare("INSERT OR REPLACE INTO ood_index (entity_set, properties, name, origin, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .run(key + [.text(index.name), .text(origin.rawValue), .text(reason), .text(utcTimestamp())])
    }
}
