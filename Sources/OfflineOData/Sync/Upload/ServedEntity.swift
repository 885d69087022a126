/// An entity as the service sent it in answer to a read by key, turned into the store's column
/// values, so it can be compared with what the store sent or had: the way the upload finds out
/// whether a request in doubt was applied (``InDoubtReconciler``) and whether an entity changed on
/// the service since it was downloaded (``ETagRecovery``).
struct ServedEntity {
    /// The entity's JSON object (V2's `{"d": ...}` unwrapped).
    let json: JSONValue
    /// The whole body as parsed, recorded as the answer of the requests found applied.
    let document: JSONValue
    /// The ETag: the `ETag` header, or `@odata.etag` / `__metadata.etag` in the body.
    let etag: String?
    /// The read's answer, recorded as the answer of the requests found applied.
    let response: HTTPResponse

    let table: EntitySetTable
    let dialect: Dialect

    init?(_ response: HTTPResponse, table: EntitySetTable, dialect: Dialect) {
        guard let document = try? JSONValue.parse(response.body), document.objectMembers != nil else { return nil }
        let entity = document["d"] ?? document
        guard entity.objectMembers != nil else { return nil }
        json = entity
        self.document = document
        etag = UploadRecorder.etag(of: response, answer: document)
        self.response = response
        self.table = table
        self.dialect = dialect
    }

    /// An entity found in a collection (a read by alternate key): it stands for a read of the
    /// entity itself, with its ETag (from the body) as the answer's header.
    init?(entity: JSONValue, table: EntitySetTable, dialect: Dialect) {
        guard entity.objectMembers != nil else { return nil }
        json = entity
        document = entity
        let etag = entity["@odata.etag"]?.stringValue ?? entity["__metadata"]?["etag"]?.stringValue
        self.etag = etag.flatMap { HTTPOptions.containsLineBreakOrNUL($0) ? nil : $0 }
        response = HTTPResponse(status: 200, headers: self.etag.map { [HTTPHeader("ETag", $0)] } ?? [], body: [])
        self.table = table
        self.dialect = dialect
    }

    /// What the served entity has for one column.
    enum Served {
        /// The entity does not send the property.
        case absent
        case value(SQLValue)
        /// It sends something that is not of the property's type: it equals nothing.
        case unreadable
    }

    func served(_ column: StoredColumn) -> Served {
        var node: JSONValue? = json
        for step in column.path { node = node?[step] }
        guard let node else { return .absent }
        do {
            return .value(try EDMValueCodec.storedValue(fromJSON: node, column: column, dialect: dialect))
        } catch {
            return .unreadable
        }
    }

    /// The stored value of `column` in the served entity; nil when it is absent or unreadable.
    func value(of column: StoredColumn) -> SQLValue? {
        if case .value(let value) = served(column) { return value }
        return nil
    }

    /// Whether every value of `expected` (column name to stored value) is what the service has.
    /// A value the service did not send counts as different: nothing is taken as applied on a guess.
    func has(_ expected: [String: SQLValue]) -> Bool {
        expected.allSatisfy { name, value in
            guard let column = table.column(named: name), case .value(let served) = served(column) else { return false }
            return Self.same(served, value)
        }
    }

    /// Whether the served entity agrees with `expected` on every column it sends; columns it does
    /// not send are not compared (a service may leave out what it does not show), and a value it
    /// sends that cannot be read disagrees (a change must not be sent over what nobody compared).
    func agrees(with expected: [String: SQLValue]) -> Bool {
        expected.allSatisfy { name, value in
            guard let column = table.column(named: name) else { return true }
            switch served(column) {
            case .absent: return true
            case .unreadable: return false
            case .value(let served): return Self.same(served, value)
            }
        }
    }

    /// SQLite's equality for what a JSON value can become: integers and reals compare by number.
    private static func same(_ left: SQLValue, _ right: SQLValue) -> Bool {
        switch (left, right) {
        case let (.integer(a), .real(b)), let (.real(b), .integer(a)): return Double(a) == b
        default: return left == right
        }
    }
}

extension ServedEntity {
    /// Reads the entity `entityID` of `table` from the service by the key the store has for it.
    /// nil when the service answers 404 (the entity is not there); throws for any other answer
    /// that is not the entity, so nothing is decided on a page that is not the entity.
    static func read(entityID: Int64, of table: EntitySetTable, dialect: Dialect, serviceRoot: String,
                     transport: HTTPTransport, file: StoreFile, cancellation: HTTPCancellation?) throws(ODataError) -> ServedEntity? {
        guard let url = try file.withConnection({ db throws(ODataError) in try keyURL(entityID: entityID, of: table, dialect: dialect, in: db) }) else {
            throw ODataError(.notFound, "\(table.entitySet): the store has no key for entity \(entityID) to read it by")
        }
        let response = try transport.send(UploadRequests(serviceRoot: serviceRoot, dialect: dialect).read(url), cancellation: cancellation)
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else {
            var error = transport.serviceError(response, request: "GET \(url)")
            error.message += " (" + AnswerVerdict.advice(for: response) + ")"
            throw error
        }
        guard let entity = ServedEntity(response, table: table, dialect: dialect) else {
            throw ODataError(.http, "GET \(url): the answer \(response.status) is not the entity as JSON (Content-Type '\(response.header("Content-Type") ?? "")')")
        }
        return entity
    }

    /// `Set(key)` for the entity's key as the store has it; nil when a key value is missing (a
    /// provisional key is a key too: the caller knows whether the service has it).
    static func keyURL(entityID: Int64, of table: EntitySetTable, dialect: Dialect, in db: SQLiteConnection) throws(ODataError) -> String? {
        let values = try table.storedKey(entityID: entityID, in: db)
        guard let values, !values.contains(.null) else { return nil }
        return table.entitySet + KeyPredicateText.predicate(Array(zip(values, table.keyColumns)), dialect: dialect)
    }
}
