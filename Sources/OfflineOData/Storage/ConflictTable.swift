/// Who changed one property of an entity in conflict, compared with the values the local change
/// was made on.
public enum PropertyChanger: String, Sendable {
    /// Only the local change (the store's user).
    case local
    /// Only the service (another user, since the store read the entity).
    case service
    /// Both, to different values.
    case both
    /// Both, to the same value: nothing to decide.
    case same
}

/// One property of an entity in conflict: its value before (what the local change was made on),
/// in the local change and on the service, and who changed it. A value absent from the local
/// change (the change did not touch it) or from the service's entity is nil.
public struct PropertyChange: Sendable, Equatable {
    public var name: String
    public var original: JSONValue
    public var local: JSONValue?
    public var served: JSONValue?
    public var changedBy: PropertyChanger

    public init(name: String, original: JSONValue, local: JSONValue?, served: JSONValue?, changedBy: PropertyChanger) {
        self.name = name
        self.original = original
        self.local = local
        self.served = served
        self.changedBy = changedBy
    }
}

/// What a conflict was made of, kept beside the archived request (`outcome` archived) or as the
/// record of a change a conflict policy discarded (`outcome` discarded), so that no change
/// disappears without a trace and the user sees what the other side wrote.
public struct ConflictDetail: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// The request is in the error archive (same id).
        case archived
        /// The policy dropped the local change (server wins): this record is all that is left of it.
        case discarded
    }

    /// The archived or discarded request's id (ids are never reused).
    public var requestID: Int64
    public var outcome: Outcome
    /// The policy that decided (`archive`, `serverWins`, ..., or `callback`).
    public var policy: String
    public var entitySet: String?
    public var entityID: Int64?
    public var method: RequestMethod
    public var url: String
    /// The service's answer that met the conflict (409, 412, or 404: the entity is gone).
    public var httpStatus: Int?
    /// The values the local change was made on (an object of property values; empty for an
    /// entity created offline).
    public var original: JSONValue
    /// The local change: the request's body (null for a delete).
    public var local: JSONValue
    /// The service's entity as read when the conflict was met; null when it is gone (404).
    public var served: JSONValue
    /// Per property, who changed what.
    public var properties: [PropertyChange]
    public var at: String

    public init(requestID: Int64, outcome: Outcome, policy: String, entitySet: String?, entityID: Int64?,
                method: RequestMethod, url: String, httpStatus: Int?, original: JSONValue, local: JSONValue,
                served: JSONValue, properties: [PropertyChange], at: String = "") {
        self.requestID = requestID
        self.outcome = outcome
        self.policy = policy
        self.entitySet = entitySet
        self.entityID = entityID
        self.method = method
        self.url = url
        self.httpStatus = httpStatus
        self.original = original
        self.local = local
        self.served = served
        self.properties = properties
        self.at = at
    }
}

/// The `ood_conflict` table (format 11): conflict details per archived request, and the changes a
/// conflict policy discarded. The caller holds the transaction; values are bound, JSON kept as text.
enum ConflictTable {
    /// Records `detail` (replacing an older record of the same request: a request sent again
    /// from the archive can meet a second conflict).
    static func record(_ detail: ConflictDetail, in db: SQLiteConnection) throws(ODataError) {
        func text(_ value: JSONValue) -> SQLValue { .text(jsonText(value)) }
        try db.prepare("""
            INSERT OR REPLACE INTO ood_conflict (request_id, outcome, policy, entity_set, entity_id, method, url, http_status,
                                                 original, local, served, properties, at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """).run([.integer(detail.requestID), .text(detail.outcome.rawValue), .text(detail.policy),
                      detail.entitySet.map(SQLValue.text) ?? .null, detail.entityID.map(SQLValue.integer) ?? .null,
                      .text(detail.method.rawValue), .text(detail.url), detail.httpStatus.map { .integer(Int64($0)) } ?? .null,
                      text(detail.original), text(detail.local), text(detail.served),
                      text(.array(detail.properties.map(Self.json(of:)))), .text(detail.at.isEmpty ? utcTimestamp() : detail.at)])
    }

    /// The details of the archived requests that met a conflict, by request id.
    static func archivedDetails(in db: SQLiteConnection) throws(ODataError) -> [Int64: ConflictDetail] {
        var result: [Int64: ConflictDetail] = [:]
        for detail in try select("""
            SELECT \(columns) FROM ood_conflict WHERE outcome = 'archived' AND request_id IN (SELECT id FROM ood_error_archive)
            """, in: db) {
            result[detail.requestID] = detail
        }
        return result
    }

    /// The changes conflict policies discarded, oldest first.
    static func discarded(in db: SQLiteConnection) throws(ODataError) -> [ConflictDetail] {
        try select("SELECT \(columns) FROM ood_conflict WHERE outcome = 'discarded' ORDER BY request_id", in: db)
    }

    /// Forgets the records of discarded changes (the app has read them); returns how many.
    static func clearDiscarded(in db: SQLiteConnection) throws(ODataError) -> Int {
        try db.prepare("DELETE FROM ood_conflict WHERE outcome = 'discarded'").run([])
        return db.changes
    }

    /// `value` as JSON text.
    static func jsonText(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static let columns = "request_id, outcome, policy, entity_set, entity_id, method, url, http_status, original, local, "
        + "served, properties, at"

    private static func select(_ sql: String, in db: SQLiteConnection) throws(ODataError) -> [ConflictDetail] {
        let statement = try db.prepare(sql)
        try statement.bind([])
        var result: [ConflictDetail] = []
        func json(_ column: Int) -> JSONValue {
            statement.text(at: column).flatMap { try? JSONValue.parse($0) } ?? .null
        }
        while try statement.step() {
            let properties = json(11).arrayValue?.compactMap(Self.propertyChange(from:)) ?? []
            result.append(ConflictDetail(
                requestID: statement.int(at: 0),
                outcome: statement.text(at: 1).flatMap(ConflictDetail.Outcome.init(rawValue:)) ?? .archived,
                policy: statement.text(at: 2) ?? "", entitySet: statement.text(at: 3),
                entityID: statement.isNull(at: 4) ? nil : statement.int(at: 4),
                method: try RequestQueueTable.storedMethod(statement.text(at: 5)), url: statement.text(at: 6) ?? "",
                httpStatus: statement.isNull(at: 7) ? nil : Int(statement.int(at: 7)),
                original: json(8), local: json(9), served: json(10), properties: properties, at: statement.text(at: 12) ?? ""))
        }
        return result
    }

    private static func json(of change: PropertyChange) -> JSONValue {
        var members: [JSONMember] = [JSONMember("name", .string(change.name)), JSONMember("original", change.original)]
        if let local = change.local { members.append(JSONMember("local", local)) }
        if let served = change.served { members.append(JSONMember("served", served)) }
        members.append(JSONMember("changedBy", .string(change.changedBy.rawValue)))
        return .object(members)
    }

    private static func propertyChange(from value: JSONValue) -> PropertyChange? {
        guard let name = value["name"]?.stringValue, let changer = value["changedBy"]?.stringValue.flatMap(PropertyChanger.init(rawValue:))
        else { return nil }
        return PropertyChange(name: name, original: value["original"] ?? .null, local: value["local"], served: value["served"],
                              changedBy: changer)
    }
}
