/// The alternate keys by which a create whose key the service assigns can be found again after its
/// answer was lost (``InDoubtReconciler``): those the model declares (`Core.AlternateKeys`,
/// ``MetadataModel/alternateKeys(entitySet:)``) and those the app declares unique per entity set,
/// kept in the store (so the app, the tool and every later upload read a create back alike).
struct AlternateKeys {
    let model: MetadataModel
    /// The app's keys, entity set to property paths: first in the list of a set's keys.
    let declared: [String: [[String]]]

    /// The store-info key of the app's declarations: one line per key, `Set=path,path`.
    static let storeKey = "alternate_keys"

    static func load(model: MetadataModel, in db: SQLiteConnection) throws(ODataError) -> AlternateKeys {
        AlternateKeys(model: model, declared: parse(try StoreInfoTable.value(storeKey, in: db) ?? ""))
    }

    /// The app's declarations as stored; lines that do not read are skipped (none are written so).
    static func parse(_ text: String) -> [String: [[String]]] {
        var declared: [String: [[String]]] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let set = parts.first, let paths = parts.last else { continue }
            let key = paths.split(separator: ",").map(String.init)
            if !key.isEmpty { declared[String(set), default: []].append(key) }
        }
        return declared
    }

    static func text(_ declared: [String: [[String]]]) -> String {
        declared.keys.sorted().flatMap { set in (declared[set] ?? []).map { set + "=" + $0.joined(separator: ",") } }
            .joined(separator: "\n")
    }

    /// The first key of `table` (the app's before the model's) whose every part is a stored
    /// column: the columns to read a create back by; nil when the set has none.
    func key(of table: EntitySetTable) -> [StoredColumn]? {
        let keys = (declared[table.entitySet] ?? []) + model.alternateKeys(entitySet: table.entitySet)
        for key in keys {
            let columns = key.compactMap { table.column(named: $0) }
            if columns.count == key.count, !columns.isEmpty { return columns }
        }
        return nil
    }

    /// `Set?$filter=a eq 'x' and b eq 2&$top=2`: the entities with these alternate-key values (two
    /// at most: a second one already says the values name no single entity).
    static func query(_ values: [(value: SQLValue, column: StoredColumn)], of table: EntitySetTable, dialect: Dialect) -> String {
        let conditions = values.map { pair in
            let literal = dialect == .v2 ? V2KeyLiteral.literal(pair.value, pair.column) : KeyPredicateText.v4Literal(pair.value, pair.column)
            return pair.column.name + "%20eq%20" + queryEncoded(literal)
        }
        return table.entitySet + "?$filter=" + conditions.joined(separator: "%20and%20") + "&$top=2"
    }

    /// A literal made for a path segment, made safe in a query value: `&`, `+`, `#`, `=` and
    /// spaces encoded (the literal's own percent signs are its encoding already).
    private static func queryEncoded(_ literal: String) -> String {
        var text = ""
        for character in literal {
            switch character {
            case "&": text += "%26"
            case "+": text += "%2B"
            case "#": text += "%23"
            case "=": text += "%3D"
            case " ": text += "%20"
            default: text.append(character)
            }
        }
        return text
    }
}

extension ServedEntity {
    /// Reads the entity of `table` whose alternate key has `values`, by a `$filter` query (both
    /// dialects take it; `Set(alt='x')` is a V4 form few services serve). `.none` when the service
    /// has none, `.several` when more than one; throws for an answer that is not a collection.
    enum ByAlternateKey {
        case none
        case one(ServedEntity)
        case several
    }

    static func read(alternateKey values: [(value: SQLValue, column: StoredColumn)], of table: EntitySetTable, dialect: Dialect,
                     serviceRoot: String, transport: HTTPTransport, cancellation: HTTPCancellation?) throws(ODataError) -> ByAlternateKey {
        let url = AlternateKeys.query(values, of: table, dialect: dialect)
        let response = try transport.send(UploadRequests(serviceRoot: serviceRoot, dialect: dialect).read(url), cancellation: cancellation)
        guard (200..<300).contains(response.status) else {
            var error = transport.serviceError(response, request: "GET \(url)")
            error.message += " (" + AnswerVerdict.advice(for: response) + ")"
            throw error
        }
        // V4 `{"value": [...]}`; V2 `{"d": {"results": [...]}}` or `{"d": [...]}`.
        let document = try? JSONValue.parse(response.body)
        guard let entities = document?["value"]?.arrayValue ?? document?["d"]?["results"]?.arrayValue ?? document?["d"]?.arrayValue else {
            throw ODataError(.http, "GET \(url): the answer \(response.status) is not a collection as JSON (Content-Type '\(response.header("Content-Type") ?? "")')")
        }
        guard entities.count <= 1 else { return .several }
        guard let entity = entities.first else { return .none }
        guard let served = ServedEntity(entity: entity, table: table, dialect: dialect) else {
            throw ODataError(.http, "GET \(url): the collection holds something that is not an entity")
        }
        return .one(served)
    }
}
