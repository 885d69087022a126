/// A local change waiting to be uploaded: the OData request that makes the same change on the
/// service, and what the engine needs to send it correctly later.
public struct QueuedRequest: Sendable, Equatable {
    /// Its place in the queue: requests are uploaded in increasing `id` order.
    public var id: Int64
    /// Stored as its wire text (`POST`), the column's encoding.
    public var method: RequestMethod
    /// Relative to the service root; may refer to an entity created offline by its Content-ID.
    public var url: String
    /// The JSON body, if any.
    public var body: String?
    /// Extra headers, as a JSON object text, if any.
    public var headers: String?
    public var entitySet: String?
    /// The local row of the entity the request changes.
    public var entityID: Int64?
    /// The ETag the entity had when it was changed, sent as `If-Match`.
    public var etag: String?
    /// How later requests in the same `$batch` refer to an entity this request creates.
    public var contentID: String?
    /// Requests with the same transaction id are uploaded in one change set.
    public var transactionID: String?
    public var createdAt: String
    /// When the upload first sent it (an HTTP date), for services that take repeatable requests;
    /// nil until then.
    public var firstSent: String?
    /// Whether the service may have it already: see ``QueueState``.
    public var state: QueueState = .pending
    /// False when the app asked that this request be sent as it is: the queue's compaction
    /// (``QueueCompaction``) neither merges it with others nor drops it.
    public var mergeable: Bool = true

    public init(id: Int64 = 0, method: RequestMethod, url: String, body: String? = nil, headers: String? = nil,
                entitySet: String? = nil, entityID: Int64? = nil, etag: String? = nil,
                contentID: String? = nil, transactionID: String? = nil, createdAt: String = "", mergeable: Bool = true) {
        self.id = id
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
        self.entitySet = entitySet
        self.entityID = entityID
        self.etag = etag
        self.contentID = contentID
        self.transactionID = transactionID
        self.createdAt = createdAt
        self.mergeable = mergeable
    }
}

/// Where a queued request stands with the service.
public enum QueueState: String, Sendable {
    /// Not sent yet, or known not to have been applied: the next upload sends it.
    case pending
    /// Sent, and its answer was not recorded (the connection broke, the process died, the answer
    /// was not proof of success): the service may or may not have applied it. The next upload
    /// finds out before sending it again (``InDoubtReconciler``); the value in the store is "sent".
    case inDoubt = "sent"
}

/// Why a request sits in the error archive. The user decides what becomes of it: send it again
/// (``LocalStore/requeueArchivedRequest(id:body:)``) or discard it.
public enum ArchiveKind: String, Sendable {
    /// The service refused it (a 4xx the request itself caused: 400, 403, 404, 422, ...).
    case refused
    /// The entity changed on the service since the store last had it (412, 409, or a 428 whose
    /// re-read found other values than the store's).
    case conflict
    /// Sent, answer lost, and the engine cannot find out whether the service applied it (a create
    /// with a key the service assigns, on a service without repeatable requests): sending it again
    /// might create the entity twice, so the user decides ("needs decision").
    case inDoubt
    /// The service's model changed so that it would refuse the request (a removed property or set,
    /// a property made mandatory that a create lacks, a changed key): the app chose to archive
    /// such requests before adopting the new model. The message names what refuses it.
    case modelChanged
}

/// A request the service refused or that needs a decision, kept with the service's answer until
/// the user acts.
public struct ArchivedRequest: Sendable, Equatable {
    public var request: QueuedRequest
    public var httpStatus: Int?
    public var message: String
    public var failedAt: String
    public var kind: ArchiveKind = .refused
    /// For a conflict met by an upload: the service's entity beside the original values and the
    /// local change, and who changed what (nil for other entries, and for conflicts archived
    /// before format 11).
    public var conflict: ConflictDetail?
}

/// The `ood_request_queue` and `ood_error_archive` tables.
///
/// Appends happen in the same SQLite transaction as the local change they describe (the caller
/// opens it), and the store commits with `synchronous = FULL`, so the queue and the tables never
/// disagree after a crash.
enum RequestQueueTable {
    private static let columns =
        "id, method, url, body, headers, entity_set, entity_id, etag, content_id, transaction_id, created_at, first_sent, no_merge"
    /// ``columns`` and the queue's state (the archive has a kind instead).
    private static let queueColumns = columns + ", state"

    /// Appends `request` (its `id` and, if empty, `createdAt` are assigned) and returns its id.
    @discardableResult
    static func append(_ request: QueuedRequest, in db: SQLiteConnection) throws(ODataError) -> Int64 {
        try db.withCachedStatement("""
            INSERT INTO ood_request_queue (method, url, body, headers, entity_set, entity_id, etag,
                                           content_id, transaction_id, created_at, no_merge)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            """) { insert throws(ODataError) in
            try insert.run(insertValues(of: request))
        }
        return db.lastInsertRowID
    }

    /// The queue in upload order.
    static func all(in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try select("SELECT \(queueColumns) FROM ood_request_queue ORDER BY id", [], in: db)
    }

    /// The entity set of each queued request that changes an entity, by id: what an upload
    /// compares before and after to announce changed sets, without reading the bodies.
    static func entitySetsByID(in db: SQLiteConnection) throws(ODataError) -> [Int64: String] {
        let statement = try db.prepare("SELECT id, entity_set FROM ood_request_queue WHERE entity_set IS NOT NULL")
        try statement.bind([])
        var result: [Int64: String] = [:]
        while try statement.step() {
            if let set = statement.text(at: 1) { result[statement.int(at: 0)] = set }
        }
        return result
    }

    /// The ids in the error archive.
    static func archivedIDs(in db: SQLiteConnection) throws(ODataError) -> Set<Int64> {
        let statement = try db.prepare("SELECT id FROM ood_error_archive")
        try statement.bind([])
        var result: Set<Int64> = []
        while try statement.step() { result.insert(statement.int(at: 0)) }
        return result
    }

    /// The next request to upload, if any.
    static func first(in db: SQLiteConnection) throws(ODataError) -> QueuedRequest? {
        try select("SELECT \(queueColumns) FROM ood_request_queue ORDER BY id LIMIT 1", [], in: db).first
    }

    /// The next `limit` requests to upload, in order.
    static func first(_ limit: Int, in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try select("SELECT \(queueColumns) FROM ood_request_queue ORDER BY id LIMIT ?1", [.integer(Int64(max(limit, 1)))], in: db)
    }

    /// The next `limit` requests queued after the request `id`, in order.
    static func following(id: Int64, limit: Int, in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try select("SELECT \(queueColumns) FROM ood_request_queue WHERE id > ?1 ORDER BY id LIMIT ?2",
                   [.integer(id), .integer(Int64(max(limit, 1)))], in: db)
    }

    /// Whether the request is still queued (not yet acknowledged or archived).
    static func contains(id: Int64, in db: SQLiteConnection) throws(ODataError) -> Bool {
        try db.scalarInt("SELECT count(*) FROM ood_request_queue WHERE id = ?1", [.integer(id)]) == 1
    }

    /// The queued requests on one entity, in upload order.
    static func requests(entitySet: String, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try select("SELECT \(queueColumns) FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = ?2 ORDER BY id",
                   [.text(entitySet), .integer(entityID)], in: db)
    }

    static func count(in db: SQLiteConnection) throws(ODataError) -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM ood_request_queue") ?? 0)
    }

    /// Records, for each request not sent before, that it is first sent at `date`.
    static func markFirstSent(ids: [Int64], date: String, in db: SQLiteConnection) throws(ODataError) {
        let update = try db.prepare("UPDATE ood_request_queue SET first_sent = ?2 WHERE id = ?1 AND first_sent IS NULL")
        for id in ids { try update.run([.integer(id), .text(date)]) }
    }

    /// Removes a request the service accepted.
    static func remove(id: Int64, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("DELETE FROM ood_request_queue WHERE id = ?1").run([.integer(id)])
    }

    /// Moves a request to the error archive with the service's status and message.
    static func archive(id: Int64, httpStatus: Int?, message: String, kind: ArchiveKind = .refused,
                        in db: SQLiteConnection) throws(ODataError) {
        let move = try db.prepare("""
            INSERT INTO ood_error_archive (\(columns), http_status, message, failed_at, kind)
            SELECT \(columns), ?2, ?3, ?4, ?5 FROM ood_request_queue WHERE id = ?1
            """)
        try move.run([.integer(id), httpStatus.map { .integer(Int64($0)) } ?? .null, .text(message), .text(utcTimestamp()),
                      .text(kind.rawValue)])
        try remove(id: id, in: db)
    }

    /// Marks requests as sent, in doubt until their answers are recorded; the caller commits this
    /// before they leave (see ``QueueState/inDoubt``).
    static func markInDoubt(ids: [Int64], in db: SQLiteConnection) throws(ODataError) {
        try setState(.inDoubt, ids: ids, in: db)
    }

    /// Marks requests as not applied by the service (it said so: a 5xx, a 429), to be sent again.
    static func markPending(ids: [Int64], in db: SQLiteConnection) throws(ODataError) {
        try setState(.pending, ids: ids, in: db)
    }

    private static func setState(_ state: QueueState, ids: [Int64], in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("UPDATE ood_request_queue SET state = ?2 WHERE id = ?1") { update throws(ODataError) in
            for id in ids { try update.run([.integer(id), .text(state.rawValue)]) }
        }
    }

    /// Sets the ETag a request is sent with (`If-Match`).
    static func setETag(_ etag: String, id: Int64, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("UPDATE ood_request_queue SET etag = ?1 WHERE id = ?2").run([.text(etag), .integer(id)])
    }

    /// The requests in doubt, in upload order.
    static func inDoubt(in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        try select("SELECT \(queueColumns) FROM ood_request_queue WHERE state = ?1 ORDER BY id", [.text(QueueState.inDoubt.rawValue)], in: db)
    }

    /// Drops every request on one entity, queued or archived (an undo of its local changes);
    /// returns the methods of the dropped requests, oldest first.
    static func dropRequests(entitySet: String, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> [RequestMethod] {
        let arguments: [SQLValue] = [.text(entitySet), .integer(entityID)]
        let select = try db.prepare("""
            SELECT method FROM (
                SELECT id, method FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = ?2
                UNION ALL
                SELECT id, method FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = ?2
            ) ORDER BY id
            """)
        try select.bind(arguments)
        var methods: [RequestMethod] = []
        while try select.step() { methods.append(try storedMethod(select.text(at: 0))) }
        try db.prepare("DELETE FROM ood_error_archive WHERE entity_set = ?1 AND entity_id = ?2").run(arguments)
        try db.prepare("DELETE FROM ood_request_queue WHERE entity_set = ?1 AND entity_id = ?2").run(arguments)
        return methods
    }

    /// The error archive, oldest first.
    static func archived(in db: SQLiteConnection) throws(ODataError) -> [ArchivedRequest] {
        let statement = try db.prepare(
            "SELECT \(columns), http_status, message, failed_at, kind FROM ood_error_archive ORDER BY id")
        try statement.bind([])
        var result: [ArchivedRequest] = []
        let conflicts = try ConflictTable.archivedDetails(in: db)
        while try statement.step() {
            result.append(ArchivedRequest(
                request: try request(from: statement),
                httpStatus: statement.isNull(at: 13) ? nil : Int(statement.int(at: 13)),
                message: statement.text(at: 14) ?? "", failedAt: statement.text(at: 15) ?? "",
                kind: statement.text(at: 16).flatMap(ArchiveKind.init(rawValue:)) ?? .refused,
                conflict: conflicts[statement.int(at: 0)]))
        }
        return result
    }

    private static func select(_ sql: String, _ arguments: [SQLValue], in db: SQLiteConnection) throws(ODataError) -> [QueuedRequest] {
        let statement = try db.prepare(sql)
        try statement.bind(arguments)
        var result: [QueuedRequest] = []
        while try statement.step() {
            // Column 13 is the queue's state (``queueColumns``).
            var queued = try request(from: statement)
            queued.state = statement.text(at: 13).flatMap(QueueState.init(rawValue:)) ?? .pending
            result.append(queued)
        }
        return result
    }

    private static func request(from statement: Statement) throws(ODataError) -> QueuedRequest {
        func optionalInt(_ column: Int) -> Int64? { statement.isNull(at: column) ? nil : statement.int(at: column) }
        var request = QueuedRequest(
            id: statement.int(at: 0), method: try storedMethod(statement.text(at: 1), id: statement.int(at: 0)), url: statement.text(at: 2) ?? "",
            body: statement.text(at: 3), headers: statement.text(at: 4), entitySet: statement.text(at: 5),
            entityID: optionalInt(6), etag: statement.text(at: 7), contentID: statement.text(at: 8),
            transactionID: statement.text(at: 9), createdAt: statement.text(at: 10) ?? "")
        request.firstSent = statement.text(at: 11)
        request.mergeable = statement.int(at: 12) == 0
        return request
    }

    /// The method a `method` column holds: its wire text, read in any case (as the store has always
    /// taken the caller's spelling). Any other text is a damaged store, reported, not trusted.
    static func storedMethod(_ text: String?, id: Int64? = nil) throws(ODataError) -> RequestMethod {
        guard let text, let method = RequestMethod.named(text) else {
            let which = id.map { "queued request #\($0)" } ?? "a queued request"
            throw ODataError(.storage, "\(which) has the method '\(text ?? "")', which is none the store writes (GET, POST, PUT, PATCH, MERGE or DELETE)")
        }
        return method
    }

    /// The parameters ?1...?11 of ``append(_:in:)``: every column but the id, which SQLite assigns.
    private static func insertValues(of request: QueuedRequest) -> [SQLValue] {
        func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
        return [.text(request.method.rawValue), .text(request.url), text(request.body),
                text(request.headers), text(request.entitySet), request.entityID.map(SQLValue.integer) ?? .null,
                text(request.etag), text(request.contentID), text(request.transactionID),
                .text(request.createdAt.isEmpty ? utcTimestamp() : request.createdAt), .integer(request.mergeable ? 0 : 1)]
    }
}
