/// After the service accepted an offline create: the key it gave the entity replaces the one the
/// store had (a provisional key, see ``ProvisionalKey``, or one the service changed), in the row
/// and in the URLs of the requests still queued on the entity, so they reach it.
///
/// Requests on other entities that name the old key in their bodies (a foreign key, a bind) are
/// not rewritten; they are sent as queued.
struct ServerAssignedKey {
    let table: EntitySetTable
    let dialect: Dialect

    /// Adopts the key in `document`, the service's answer to the POST that created entity
    /// `entityID`; does nothing when the answer has no key, or the key is the same. Returns
    /// whether the answer held the key.
    @discardableResult
    func adopt(_ document: JSONValue, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> Bool {
        guard let served = Self.key(in: document, keyColumns: table.keyColumns, dialect: dialect) else { return false }
        try adopt(served, entityID: entityID, in: db)
        return true
    }

    /// The key values of the entity in a create's answer (V4, or V2's `{"d": ...}`), stored as the
    /// key columns store them; nil when a key property is missing, null or not of its type (the
    /// answer then does not say which entity was made: ``AnswerVerdict`` asks for this).
    static func key(in document: JSONValue, keyColumns: [StoredColumn], dialect: Dialect) -> [SQLValue]? {
        guard !keyColumns.isEmpty else { return nil }
        let entity = document["d"] ?? document
        var served: [SQLValue] = []
        for column in keyColumns {
            guard let member = entity[column.name], !member.isNull else { return nil }
            do {
                served.append(try EDMValueCodec.storedValue(fromJSON: member, column: column, dialect: dialect))
            } catch {
                return nil
            }
        }
        return served
    }

    /// The last segment of a created entity's URL, `Set(key)`: the same whatever root or host the
    /// service wrote before it.
    static func entitySegment(ofLocation location: String) -> String {
        let path = location.split(separator: "?").first.map(String.init) ?? location
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Whether `location` names an entity of `entitySet` by key (`…/Set(key)`), as a create's
    /// answer must when it has no entity: the key itself is read when the answer is recorded.
    static func locationNamesAnEntity(_ location: String, of entitySet: String) -> Bool {
        let segment = entitySegment(ofLocation: location)
        return segment.hasPrefix(entitySet + "(") && segment.hasSuffix(")") && segment.count > entitySet.count + 2
    }

    /// The key a `Location` (or `OData-EntityId`) header names, as the store keeps it: nil when the
    /// header does not name one entity of this set by its whole key (it does not parse, names
    /// another set, a navigation, a partial key, a value not of the key's type). ``AnswerVerdict``
    /// takes such a header as no proof, so a create is never recorded without the key it got.
    func key(inLocation location: String, model: MetadataModel) -> [SQLValue]? {
        guard !table.keyColumns.isEmpty else { return nil }
        let segment = Self.entitySegment(ofLocation: location)
        guard let parsed = try? ODataURLParser(dialect: dialect).parse(segment),
              let bound = try? ODataBinder(model: model, dialect: dialect).bind(parsed),
              let target = bound.path, target.entitySet == table.entitySet, target.steps.isEmpty, target.rootKey != nil else { return nil }
        let served = table.keyValues(of: target)
        return served.contains(.null) ? nil : served
    }

    /// ``key(inLocation:model:)`` for the creates in `table` (nil: no table), as ``AnswerVerdict`` asks it.
    static func locationReader(table: EntitySetTable?, model: MetadataModel, dialect: Dialect) -> ((String) -> [SQLValue]?)? {
        guard let table else { return nil }
        let keys = ServerAssignedKey(table: table, dialect: dialect)
        return { location in keys.key(inLocation: location, model: model) }
    }

    /// Adopts the key a `Location` (or `OData-EntityId`) header names, for a create answered
    /// without the entity; does nothing when the header does not name an entity of this set (the
    /// verdict let such an answer through only when the create's body gave the key).
    func adopt(location: String, model: MetadataModel, entityID: Int64, in db: SQLiteConnection) throws(ODataError) {
        guard let served = key(inLocation: location, model: model) else { return }
        try adopt(served, entityID: entityID, in: db)
    }

    /// Makes `served` the key of entity `entityID`, in its row and in the requests still queued on it.
    private func adopt(_ served: [SQLValue], entityID: Int64, in db: SQLiteConnection) throws(ODataError) {
        let current = try table.storedKey(entityID: entityID, in: db)
        guard let current, current != served else { return }
        // A copy the service sent meanwhile (a download between the POST and its answer) gives way.
        let count = served.count
        try db.prepare("DELETE FROM \(table.quotedName) WHERE \(try table.keyCondition()) AND \"_ood_id\" <> ?\(count + 1) AND \"_ood_change\" IS NULL")
            .run(served + [.integer(entityID)])
        let assignments = table.keyColumns.enumerated().map { "\($0.element.quotedName) = ?\($0.offset + 1)" }.joined(separator: ", ")
        try db.prepare("UPDATE \(table.quotedName) SET \(assignments) WHERE \"_ood_id\" = ?\(count + 1)").run(served + [.integer(entityID)])
        let predicate = KeyPredicateText.predicate(Array(zip(served, table.keyColumns)), dialect: dialect)
        let rewrite = try db.prepare("UPDATE ood_request_queue SET url = ?1 WHERE id = ?2")
        for queued in try RequestQueueTable.requests(entitySet: table.entitySet, entityID: entityID, in: db) {
            if let url = Self.url(queued.url, withKeyPredicate: predicate) { try rewrite.run([.text(url), .integer(queued.id)]) }
        }
    }

    /// `Set(old)/rest?query` with its first key predicate replaced; nil when it has none.
    static func url(_ url: String, withKeyPredicate predicate: String) -> String? {
        let characters = Array(url)
        guard let open = characters.firstIndex(of: "(") else { return nil }
        var index = open + 1
        var inQuotes = false
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                // `''` inside quotes is an escaped quote: it toggles twice.
                inQuotes.toggle()
            } else if character == ")" && !inQuotes {
                return String(characters[..<open]) + predicate + String(characters[(index + 1)...])
            }
            index += 1
        }
        return nil
    }
}
