/// Resolves a change the service refused because the entity changed or went away there (409, 412;
/// 404 on an update or delete), by the store's ``ConflictPolicy`` for its set, the upload's, or
/// the app's ``ConflictResolver``: in the upload layer, so one request at a time and in `$batch`es
/// resolve alike (see docs/CONFLICTS.md).
///
/// The service's entity is read first (no transaction open meanwhile), then one transaction does
/// what the decision says, so a kill -9 at any point leaves either the state before (the request
/// queued in doubt or pending: the next upload settles it, reads again and decides again) or the
/// state after:
/// - archive: the request (and those behind it on the entity) in the error archive, with the
///   three versions (``ConflictTable``);
/// - server wins: the requests on the entity dropped and recorded as discarded, the row the
///   service's entity (or gone, when it is gone);
/// - client wins, merge, a merged body: the request pending again on the service's ETag (with the
///   merged method and body), the row the service's values under the local change's, the saved
///   original values the service's. The next send is an ordinary one: marked in doubt first, so
///   an answer lost then is settled by ``InDoubtReconciler`` and nothing is applied twice.
struct ConflictResolution {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema
    /// The store's policies (its file's).
    let policies: ConflictPolicies
    /// One upload's policy for every set (`upload --conflicts`); nil follows ``policies``.
    let override: ConflictPolicy?
    let resolver: ConflictResolver?

    /// How many times one request is sent again within one upload before it is archived, so a
    /// service that keeps refusing (a rule's 409, a writer faster than the upload) ends the loop.
    static let resendsPerUpload = 3

    enum Result: Equatable {
        /// The request is queued again, ready to be sent: the uploader sends it next.
        case sendAgain
        /// The request left the queue: applied (a delete of what is gone), archived or discarded.
        case settled(Settled)
    }

    struct Settled: Equatable {
        var applied = 0
        var archived = 0
        var discarded = 0
    }

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    func policy(for request: QueuedRequest) -> ConflictPolicy { override ?? policies.policy(for: request.entitySet) }

    /// Whether a refused answer `status` to `request` is a conflict resolved here: 409 or 412 to
    /// a change of a stored entity; 404 to an update or delete when a policy other than `archive`
    /// (or a resolver) decides, since `archive` keeps today's refusal.
    func handles(_ request: QueuedRequest, status: Int) -> Bool {
        guard request.entitySet != nil, request.entityID != nil else { return false }
        switch request.method {
        case .patch, .put, .merge, .delete: break
        case .get, .post: return false
        }
        switch status {
        case 409, 412: return true
        case 404: return resolver != nil || policy(for: request) != .archive
        default: return false
        }
    }

    /// Resolves `request`, refused with `status` and the service's `message`; `sentAgain` is how
    /// many times this upload already sent it again after a conflict.
    func resolve(_ request: QueuedRequest, status: Int, message: String, sentAgain: Int,
                 cancellation: HTTPCancellation?) throws(ODataError) -> Result {
        let kind: ArchiveKind = status == 404 ? .refused : .conflict
        guard let setName = request.entitySet, let entityID = request.entityID, let table = schema.table(forEntitySet: setName) else {
            return .settled(Settled(archived: try archive(request, status: status, message: message, kind: kind, detail: nil)))
        }
        let policy = self.policy(for: request)
        let served: ServedEntity?
        do {
            served = try ServedEntity.read(entityID: entityID, of: table, dialect: dialect, serviceRoot: serviceRoot,
                                           transport: transport, file: file, cancellation: cancellation)
        } catch {
            if policy == .archive && resolver == nil {
                return .settled(Settled(archived: try archive(request, status: status, message: message
                                                              + " (the service's entity could not be read: \(error.message))",
                                                              kind: kind, detail: nil)))
            }
            // Nothing is decided without the service's entity: the request stays queued, the upload stops.
            try markPending(request)
            var stopped = error
            stopped.message = "\(request.method) \(redactedURL(request.url)) met a conflict (\(status)) and the service's entity "
                + "could not be read to resolve it: \(error.message); the request stays queued for the next upload"
            throw stopped
        }
        return try decide(request, status: status, message: message, sentAgain: sentAgain, served: served)
    }

    /// Resolves `request`, refused with `status` (428 included: ``ETagRecovery`` found the entity
    /// changed on the service), given the service's entity as just read (nil: gone).
    func decide(_ request: QueuedRequest, status: Int, message: String, sentAgain: Int,
                served: ServedEntity?) throws(ODataError) -> Result {
        let kind: ArchiveKind = status == 404 ? .refused : .conflict
        guard let setName = request.entitySet, let entityID = request.entityID, let table = schema.table(forEntitySet: setName) else {
            return .settled(Settled(archived: try archive(request, status: status, message: message, kind: kind, detail: nil)))
        }
        let policy = self.policy(for: request)
        let (original, queued) = try file.withConnection { db throws(ODataError) in
            (try OriginalValues.values(entityID: entityID, of: table, on: db),
             try RequestQueueTable.requests(entitySet: setName, entityID: entityID, in: db))
        }
        let comparison = ConflictComparison(table: table, dialect: dialect, original: original, queued: queued, served: served)
        let versions = ConflictVersions(entitySet: setName, url: request.url, method: request.method, httpStatus: status,
                                        original: comparison.originalJSON, local: Self.json(request.body),
                                        served: served?.json ?? .null, properties: comparison.properties, policy: policy)
        var decision = ConflictDecision.policy(policy)
        if let resolver { decision = resolver(versions) }
        let decidedBy = resolver == nil ? policy.rawValue : "callback"
        func detail(_ outcome: ConflictDetail.Outcome, of queuedRequest: QueuedRequest) -> ConflictDetail {
            ConflictDetail(requestID: queuedRequest.id, outcome: outcome, policy: decidedBy, entitySet: setName, entityID: entityID,
                           method: queuedRequest.method, url: queuedRequest.url, httpStatus: status, original: versions.original,
                           local: Self.json(queuedRequest.body), served: versions.served, properties: versions.properties)
        }
        func archived(_ note: String) throws(ODataError) -> Result {
            .settled(Settled(archived: try archive(request, status: status, message: message + note, kind: kind,
                                                   detail: detail(.archived, of: request))))
        }
        let later = queued.filter { $0.id >= request.id }
        if sentAgain >= Self.resendsPerUpload {
            return try archived(" (sent again \(sentAgain) times on the service's current version and refused each time)")
        }
        // A queued body that no longer reads leaves the local side of the comparison incomplete:
        // a merge would leave out what it changed, a resend would overwrite its columns in the
        // row. Only archiving (and server wins, which keeps the bodies as they were) loses nothing.
        if let unreadable = comparison.unreadable {
            switch decision {
            case .policy(.archive), .policy(.serverWins): break
            default:
                return try archived(" (the body of queued request \(unreadable.requestID) no longer reads against the model "
                                    + "(\(unreadable.reason)), so the local change cannot be compared with the service's entity; "
                                    + "it is archived rather than resolved)")
            }
        }
        switch decision {
        case .policy(.archive):
            return try archived("")
        case .policy(.serverWins):
            return .settled(try serverWins(later, served: served, table: table, entityID: entityID) { detail(.discarded, of: $0) })
        case .policy(.clientWins):
            guard let served else {
                return request.method == .delete
                    ? .settled(try goneAlready(later, table: table, entityID: entityID))
                    : try archived(" (the entity was deleted on the service; a change is not made into a create)")
            }
            try resend(request, served: served, method: request.method, body: request.body, keeping: comparison.touched,
                       table: table, entityID: entityID)
            return .sendAgain
        case .policy(.mergeChangedFields):
            guard let served else {
                return request.method == .delete
                    ? .settled(try goneAlready(later, table: table, entityID: entityID))
                    : try archived(" (the entity was deleted on the service)")
            }
            guard request.method != .delete else { return try archived(" (a delete is not merged with the service's changes)") }
            guard !comparison.overlaps else {
                let names = versions.properties.filter { $0.changedBy == .both }.map(\.name).joined(separator: ", ")
                return try archived(" (the service changed the same properties to other values: \(names))")
            }
            // A PUT would reset what the service changed: the merge sends an update of the changed fields.
            let fields = comparison.changedFieldsBody
            let method = fields == nil ? request.method : (request.method == .put ? updateMethod : request.method)
            try resend(request, served: served, method: method, body: fields.map(ConflictTable.jsonText) ?? request.body,
                       keeping: comparison.touched, table: table, entityID: entityID)
            return .sendAgain
        case .merged(let body):
            guard let served else { return try archived(" (the entity was deleted on the service; the merged body is not sent)") }
            guard request.method != .delete else { return try archived(" (a merged body does not turn a delete into an update)") }
            let text = ConflictTable.jsonText(body)
            let merged: [String: SQLValue]
            do {
                merged = try EntityBody(json: Array(text.utf8), table: table, dialect: dialect).values
            } catch {
                return try archived(" (the resolver's merged body is refused: \(error.message))")
            }
            try resend(request, served: served, method: updateMethod, body: text, keeping: Set(merged.keys), table: table,
                       entityID: entityID, values: merged)
            return .sendAgain
        }
    }

    /// The update method of the dialect: PATCH (V4), MERGE (V2).
    private var updateMethod: RequestMethod { dialect == .v2 ? .merge : .patch }

    private static func json(_ body: String?) -> JSONValue { body.flatMap { try? JSONValue.parse($0) } ?? .null }

    /// Server wins: the entity's requests from this one on leave the queue, each recorded as
    /// discarded; the row takes the service's entity (leaves the store when it is gone).
    private func serverWins(_ requests: [QueuedRequest], served: ServedEntity?, table: EntitySetTable, entityID: Int64,
                            record: (QueuedRequest) -> ConflictDetail) throws(ODataError) -> Settled {
        try file.withConnection { db throws(ODataError) -> Settled in
            try db.transaction { () throws(ODataError) -> Settled in
                for request in requests {
                    try ConflictTable.record(record(request), in: db)
                    try RequestQueueTable.remove(id: request.id, in: db)
                }
                if let served {
                    try served.write(entityID: entityID, keeping: [], on: db)
                    let stillInError = try RequestQueueTable.archivedCount(entitySet: table.entitySet, entityID: entityID, in: db) > 0
                    try db.prepare("UPDATE \(table.quotedName) SET \"_ood_change\" = NULL, \"_ood_error\" = ?2 WHERE \"_ood_id\" = ?1")
                        .run([.integer(entityID), .integer(stillInError ? 1 : 0)])
                    try OriginalValues.forget(entitySet: table.entitySet, entityID: entityID, on: db)
                } else {
                    try EntityDeletion.delete(entityID: entityID, from: table, on: db)
                }
                return Settled(discarded: requests.count)
            }
        }
    }

    /// A delete of an entity the service no longer has: what it asked for holds; the requests
    /// leave the queue and the entity the store.
    private func goneAlready(_ requests: [QueuedRequest], table: EntitySetTable, entityID: Int64) throws(ODataError) -> Settled {
        try file.withConnection { db throws(ODataError) -> Settled in
            try db.transaction { () throws(ODataError) -> Settled in
                for request in requests { try RequestQueueTable.remove(id: request.id, in: db) }
                try EntityDeletion.delete(entityID: entityID, from: table, on: db)
                return Settled(applied: requests.count)
            }
        }
    }

    /// Queues `request` again on the service's version: its ETag, `method` and `body`; the row
    /// takes the service's values except the columns in `keeping` (then `values` over them); the
    /// saved original values become the service's, which the change is now made on.
    private func resend(_ request: QueuedRequest, served: ServedEntity, method: RequestMethod, body: String?, keeping: Set<String>,
                        table: EntitySetTable, entityID: Int64, values: [String: SQLValue] = [:]) throws(ODataError) {
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.prepareResend(id: request.id, etag: served.etag ?? request.etag, method: method, body: body, in: db)
                if request.method != .delete {
                    try served.write(entityID: entityID, keeping: keeping, on: db)
                    for (name, value) in values {
                        guard let column = table.column(named: name) else { continue }
                        try db.prepare("UPDATE \(table.quotedName) SET \(column.quotedName) = ?2 WHERE \"_ood_id\" = ?1")
                            .run([.integer(entityID), value])
                    }
                }
                if try OriginalValues.areSaved(entityID: entityID, of: table, on: db) {
                    try OriginalValues.accept(served.storedValues, entityID: entityID, of: table, on: db)
                }
            }
        }
    }

    private func archive(_ request: QueuedRequest, status: Int, message: String, kind: ArchiveKind,
                         detail: ConflictDetail?) throws(ODataError) -> Int {
        try file.withConnection { db throws(ODataError) -> Int in
            try db.transaction { () throws(ODataError) -> Int in
                let count = try recorder.archive(request, status: status, message: message, kind: kind, in: db)
                if let detail { try ConflictTable.record(detail, in: db) }
                return count
            }
        }
    }

    private func markPending(_ request: QueuedRequest) throws(ODataError) {
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in try RequestQueueTable.markPending(ids: [request.id], in: db) }
        }
    }
}

extension UploadOutcome {
    /// Counts what a resolution settled: applied as sent, archived, discarded by the policy.
    mutating func add(_ settled: ConflictResolution.Settled) {
        sent += settled.applied
        archived += settled.archived
        discarded += settled.discarded
    }
}
