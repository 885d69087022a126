/// Settles the requests left in doubt by an earlier upload (sent, answer never recorded: the
/// connection broke, the process was killed, the answer proved nothing) before anything is sent
/// again, so that no change is applied twice. Runs at the start of every upload; a queue with no
/// request in doubt costs one query.
///
/// The requests in doubt on one entity are settled together (a `$batch` may have sent several),
/// by what OData lets a client find out:
/// - the service takes repeatable requests for the set: nothing to find out, the upload sends them
///   again with the same `Repeatability-Request-ID` and the service applies each once;
/// - updates (PATCH, PUT, MERGE): the entity is read; when it has the values sent (the longest run
///   of them, in order), those requests were applied; the rest is sent again;
/// - DELETE: a 404 on read means applied;
/// - a create whose body gave the key: read by that key; 404 means not applied, the values sent
///   mean applied, other values need a decision;
/// - a media create (its stream written offline): the entity is looked for by its stream
///   (``MediaCreateFinder``): found, the upload adopts it without a second `POST`; not there, the
///   create is sent again; when the engine cannot tell, it is archived as below;
/// - a create whose key the service assigns, on a set with an alternate key (``AlternateKeys``:
///   the model's `Core.AlternateKeys` or properties the app declares unique): the service is read
///   by the values the create sent for that key; none found means not applied (sent again), one
///   with the values sent means applied (its key is taken), anything else needs a decision;
/// - a create whose key the service assigns on a set without an alternate key: it cannot be found
///   again, and sending it again might create the entity twice, so it goes to the error archive as
///   ``ArchiveKind/inDoubt`` (with the later requests on its entity), where the user re-sends or
///   discards it.
///
/// Any read that does not answer the entity or 404 (a login page, a 5xx, no network) stops the
/// upload with every request still in doubt.
struct InDoubtReconciler {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema
    let repeatable: RepeatableRequests
    /// The keys a create whose key the service assigns is read back by; none: such creates need a decision.
    var alternateKeys: AlternateKeys?

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    struct Outcome {
        /// Found applied: they left the queue as if answered.
        var applied = 0
        /// Moved to the error archive (needing a decision), the requests behind them included.
        var archived = 0
        /// Media creates found applied on the service, by request id: the address (absolute) of
        /// the entity created. They stay in doubt until the upload finishes them
        /// (``MediaUpload/finish(_:at:etag:csrf:cancellation:)``) instead of sending them again.
        var adoptedMedia: [Int64: String] = [:]
    }

    private enum Finding {
        /// The first `count` requests of the group were applied; `served` is the entity now (nil: gone).
        /// The others were not, and are sent again; unless `undecided` gives the reason the engine
        /// could not judge them, which sends them to the error archive as in doubt.
        case applied(count: Int, served: ServedEntity?, undecided: String? = nil)
        case notApplied
        case needsDecision(String)
    }

    func reconcile(cancellation: HTTPCancellation?) throws(ODataError) -> Outcome {
        let doubtful = try file.withConnection { db throws(ODataError) in try RequestQueueTable.inDoubt(in: db) }
        var outcome = Outcome()
        for group in Self.byEntity(doubtful) {
            let finding: Finding
            switch try approach(to: group) {
            case .sendAgain: continue
            case .needsDecision(let reason): finding = .needsDecision(reason)
            case .findMedia(let table, let stream):
                guard let create = group.first else { continue }
                let finder = MediaCreateFinder(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file)
                switch try finder.find(create, stream: stream, table: table, cancellation: cancellation) {
                case .found(let address):
                    outcome.adoptedMedia[create.id] = ServiceURL.resolve(address, against: serviceRoot)
                    continue
                case .notThere:
                    finding = .notApplied
                case .cannotTell(let reason):
                    finding = .needsDecision(Self.unknown(create, reason + ", so the engine cannot tell whether the service created "
                        + "the media entity; sending it again might create it twice. Re-send it (requeue) or discard it"))
                }
            case .read(let table, let entityID): finding = try find(group, table: table, entityID: entityID, cancellation: cancellation)
            case .readByAlternateKey(let table, let values):
                finding = try find(group, table: table, alternateKey: values, cancellation: cancellation)
            }
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    switch finding {
                    case .applied(let count, let served, let undecided):
                        for request in group.prefix(count) {
                            let deletes = request.method == .delete
                            try recorder.acknowledge(request, Self.answer(for: request, served: served),
                                                     answer: deletes ? nil : served?.document, in: db)
                        }
                        let rest = Array(group.dropFirst(count))
                        if let undecided, !rest.isEmpty {
                            outcome.archived += try recorder.archive(rest, status: nil, message: undecided, kind: .inDoubt, in: db)
                        } else {
                            try RequestQueueTable.markPending(ids: rest.map(\.id), in: db)
                        }
                        outcome.applied += count
                    case .notApplied:
                        try RequestQueueTable.markPending(ids: group.map(\.id), in: db)
                    case .needsDecision(let reason):
                        outcome.archived += try recorder.archive(group, status: nil, message: reason, kind: .inDoubt, in: db)
                    }
                }
            }
        }
        return outcome
    }

    /// The requests in doubt grouped by entity, each group in queue order, the groups in the order
    /// of their first request.
    static func byEntity(_ requests: [QueuedRequest]) -> [[QueuedRequest]] {
        var groups: [[QueuedRequest]] = []
        var index: [String: Int] = [:]
        for request in requests {
            guard let set = request.entitySet, let id = request.entityID else {
                groups.append([request])
                continue
            }
            let key = "\(id) \(set)"
            if let position = index[key] {
                groups[position].append(request)
            } else {
                index[key] = groups.count
                groups.append([request])
            }
        }
        return groups
    }

    /// How a group of requests in doubt on one entity is settled, decided before anything is sent
    /// (the upload's preview shows it, ``UploadPreviewer``).
    enum Approach {
        /// Repeatable requests: sent again with the same `Repeatability-Request-ID`.
        case sendAgain
        /// The entity is read by its key, and what it has decides.
        case read(table: EntitySetTable, entityID: Int64)
        /// A create whose key the service assigns: the entity is looked for by the values the
        /// create sent for an alternate key, and what is found decides.
        case readByAlternateKey(table: EntitySetTable, values: [(value: SQLValue, column: StoredColumn)])
        /// Nothing can be found out: the group goes to the error archive as in doubt.
        case needsDecision(String)
        /// A media create alone: the entity is looked for by its stream (``MediaCreateFinder``).
        case findMedia(table: EntitySetTable, stream: StreamRecord)
    }

    func approach(to group: [QueuedRequest]) throws(ODataError) -> Approach {
        if group.allSatisfy({ repeatable.applies(to: $0) && $0.firstSent != nil }) { return .sendAgain }
        guard let first = group.first, let setName = first.entitySet, let entityID = first.entityID,
              let table = schema.table(forEntitySet: setName) else {
            return .needsDecision(Self.unknown(group.first, "it names no entity the engine can read back"))
        }
        if group.count == 1, first.method == .post, let stream = try MediaUpload.localStream(of: first, schema: schema, file: file) {
            return .findMedia(table: table, stream: stream)
        }
        if first.method == .post && !AnswerVerdict.bodyGivesKey(first, keyColumns: table.keyColumns) {
            if let columns = alternateKeys?.key(of: table) {
                return Self.alternateKeyValues(first, columns: columns, of: table, dialect: dialect)
                    .map { .readByAlternateKey(table: table, values: $0) }
                    ?? .needsDecision(Self.unknown(first, "the service assigns the created entity's key, and the create does "
                        + "not send every part of the alternate key \(columns.map(\.name).joined(separator: ", ")) to find it by; "
                        + "sending it again might create it twice. Re-send it (requeue) or discard it"))
            }
            return .needsDecision(Self.unknown(first, "the service assigns the created entity's key and does not take "
                + "repeatable requests, so the engine cannot find out whether it created the entity; sending it again "
                + "might create it twice. Re-send it (requeue) or discard it"))
        }
        return .read(table: table, entityID: entityID)
    }

    /// The values `create` sent for the alternate key `columns`; nil when one is missing or null
    /// (nothing to find the entity by).
    static func alternateKeyValues(_ create: QueuedRequest, columns: [StoredColumn], of table: EntitySetTable,
                                   dialect: Dialect) -> [(value: SQLValue, column: StoredColumn)]? {
        guard let body = create.body, let values = try? EntityBody(json: Array(body.utf8), table: table, dialect: dialect).values
        else { return nil }
        var found: [(value: SQLValue, column: StoredColumn)] = []
        for column in columns {
            guard let value = values[column.name], value != .null else { return nil }
            found.append((value, column))
        }
        return found
    }

    private func find(_ group: [QueuedRequest], table: EntitySetTable, entityID: Int64,
                      cancellation: HTTPCancellation?) throws(ODataError) -> Finding {
        let served = try ServedEntity.read(entityID: entityID, of: table, dialect: dialect, serviceRoot: serviceRoot,
                                           transport: transport, file: file, cancellation: cancellation)
        return judge(group, table: table, served: served)
    }

    /// A create read back by its alternate key: none found, it was not applied (unless a delete
    /// in doubt with it ends the group: then both were, as after a 404 on a read by key); one
    /// found is judged as a read by key would be (the values sent mean applied, its key taken).
    private func find(_ group: [QueuedRequest], table: EntitySetTable, alternateKey values: [(value: SQLValue, column: StoredColumn)],
                      cancellation: HTTPCancellation?) throws(ODataError) -> Finding {
        switch try ServedEntity.read(alternateKey: values, of: table, dialect: dialect, serviceRoot: serviceRoot,
                                     transport: transport, cancellation: cancellation) {
        case .none: return judge(group, table: table, served: nil)
        case .one(let served): return judge(group, table: table, served: served)
        case .several:
            let key = values.map { $0.column.name }.joined(separator: ", ")
            return .needsDecision(Self.unknown(group.first, "more than one entity on the service has the values it sent for the "
                + "alternate key \(key), so the engine cannot tell whether one of them is this create. Re-send it (requeue) or "
                + "discard it"))
        }
    }

    /// What the entity the service has now (nil: none) says about the group sent on it.
    private func judge(_ group: [QueuedRequest], table: EntitySetTable, served: ServedEntity?) -> Finding {
        guard let first = group.first else { return .notApplied }
        let creates = first.method == .post
        guard let served else {
            // Not there: a DELETE at the end was applied (with whatever came before it); a create
            // or an update was not (an update is sent again and meets the service's 404).
            let deletes = group.last.map { $0.method == .delete } ?? false
            return deletes ? .applied(count: group.count, served: nil) : .notApplied
        }
        // The longest run of the group, from its start, whose values the service has.
        var expected: [String: SQLValue] = [:]
        var runs: [(count: Int, values: [String: SQLValue])] = []
        // A body that no longer reads (the model changed since it was queued) ends the run: what
        // it sent cannot be compared, so its request and those after it are not judged.
        var unreadable: (position: Int, reason: String)?
        for (position, request) in group.enumerated() {
            if request.method == .delete { break }
            guard let body = request.body else { break }
            let values: [String: SQLValue]
            do throws(ODataError) {
                values = try EntityBody(json: Array(body.utf8), table: table, dialect: dialect).values
            } catch {
                unreadable = (position, Self.unknown(request, "its body no longer reads against the model (\(error.message)), "
                    + "so the engine cannot compare it with the entity on the service and cannot tell whether it was "
                    + "applied. Re-send it (requeue) or discard it"))
                break
            }
            guard !values.isEmpty else { break }
            expected.merge(values) { _, new in new }
            runs.append((position + 1, expected))
        }
        let matched = runs.last(where: { served.has($0.values) })?.count
        // Every request before the unreadable one was applied (or there were none): the verdict
        // stops there, and says why, rather than calling the rest not applied.
        if let unreadable, (matched ?? 0) == unreadable.position {
            return unreadable.position == 0 ? .needsDecision(unreadable.reason)
                : .applied(count: unreadable.position, served: served, undecided: unreadable.reason)
        }
        if let matched { return .applied(count: matched, served: served) }
        if creates {
            return .needsDecision(Self.unknown(first, "an entity with this key is on the service with other values than the "
                + "create sent (created by someone else, or created by this upload and changed since). Re-send it "
                + "(requeue) or discard it"))
        }
        return .notApplied
    }

    /// The answer a request found applied is recorded with: the entity read (its ETag, its key) or
    /// a 204 for a deletion.
    private static func answer(for request: QueuedRequest, served: ServedEntity?) -> HTTPResponse {
        guard let served, request.method != .delete else { return HTTPResponse(status: 204, headers: [], body: []) }
        return served.response
    }

    private static func unknown(_ request: QueuedRequest?, _ reason: String) -> String {
        let what = request.map { "\($0.method) \(redactedURL($0.url))" } ?? "the request"
        return "\(what) was sent and its answer was lost: \(reason)"
    }
}
