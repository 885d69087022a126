/// A service that wants `If-Match` (it answers a change without one `428 Precondition Required`)
/// but sent no ETag with the entity in the collection: some V4 services give `@odata.etag` only
/// on single-entity reads.
///
/// The entity is read by key and compared with the values the store had before its local
/// changes (kept in ``OriginalValues`` since the first one). Equal: nobody changed it meanwhile,
/// so the read's ETag is the version the change was made on, and the request is sent again with
/// it. Different: someone changed the entity on the service; sending the change as it is would
/// overwrite theirs, so it is a conflict, resolved by the set's policy like a 412
/// (``ConflictResolution``: archived by default, with the three versions). `If-Match: *` is never
/// sent for a change made on downloaded data.
struct ETagRecovery {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema

    /// The entity sets whose changes need an ETag (``MetadataModel/requiresETag(entitySet:)``),
    /// found once per upload.
    let setsCheckingETags: Set<String>

    init(transport: HTTPTransport, serviceRoot: String, dialect: Dialect, file: StoreFile, schema: StoreSchema) {
        self.transport = transport
        self.serviceRoot = serviceRoot
        self.dialect = dialect
        self.file = file
        self.schema = schema
        setsCheckingETags = Set(schema.model.entityContainer?.entitySets.map(\.name).filter { schema.model.requiresETag(entitySet: $0) } ?? [])
    }

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    enum Result {
        /// The request has the served ETag now (and, after a conflict, the policy's body): send it again.
        case retry
        /// The request left the queue: archived (with those behind it), discarded or applied.
        case settled(ConflictResolution.Settled)
    }

    /// Whether `request` would be refused without an ETag and has none: a change of an entity
    /// whose set the model says checks ETags. Such a request is read for first (no 428 round trip).
    /// `sentBefore`: the requests that go before it in the same upload step; a change of an entity
    /// created by one of them takes its ETag from the create's answer (or `*`), not from a read.
    func needsETagFirst(_ request: QueuedRequest, sentBefore: ArraySlice<QueuedRequest> = []) -> Bool {
        guard request.etag == nil, let set = request.entitySet, setsCheckingETags.contains(set) else { return false }
        switch request.method {
        case .patch, .put, .merge, .delete: break
        case .get, .post: return false
        }
        return !sentBefore.contains { $0.method == .post && $0.entityID == request.entityID && $0.entitySet == set }
    }

    /// Reads the entity of `request` (answered 428, or about to be sent without the ETag its set
    /// needs) and gives the request the entity's ETag; an entity changed on the service goes to
    /// `conflicts`, and what cannot be read is archived.
    func recover(_ request: QueuedRequest, conflicts: ConflictResolution,
                 cancellation: HTTPCancellation?) throws(ODataError) -> Result {
        let label = "\(request.method) \(redactedURL(request.url))"
        guard let setName = request.entitySet, let entityID = request.entityID, let table = schema.table(forEntitySet: setName) else {
            return try archive(request, status: 428, message: "\(label): the service wants an ETag (428) "
                                                + "and the request names no entity to read it from", kind: .refused)
        }
        let served = try ServedEntity.read(entityID: entityID, of: table, dialect: dialect, serviceRoot: serviceRoot,
                                           transport: transport, file: file, cancellation: cancellation)
        guard let served else {
            // Gone from the service: a policy other than `archive` decides, as for a 404.
            if conflicts.handles(request, status: 404) {
                let message = "\(label): the service wants an ETag (428) and the entity is no longer there (404)"
                return Self.result(try conflicts.decide(request, status: 404, message: message, sentAgain: 0, served: nil))
            }
            return try archive(request, status: 404, message: "\(label): the service wants an ETag (428) and "
                                                + "the entity is no longer there (404)", kind: .refused)
        }
        guard let etag = served.etag, !etag.isEmpty else {
            return try archive(request, status: 428, message: "\(label): the service wants an ETag (428) and "
                                                + "sends none for the entity", kind: .refused)
        }
        let original = try file.withConnection { db throws(ODataError) in
            try OriginalValues.values(entityID: entityID, of: table, on: db)
        }
        guard served.agrees(with: original) else {
            let message = "\(label): the entity changed on the service since it was downloaded (its values differ from those the "
                + "local change was made on)"
            return Self.result(try conflicts.decide(request, status: 428, message: message, sentAgain: 0, served: served))
        }
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.setETag(etag, id: request.id, in: db)
            }
        }
        return .retry
    }

    private static func result(_ resolution: ConflictResolution.Result) -> Result {
        switch resolution {
        case .sendAgain: return .retry
        case .settled(let settled): return .settled(settled)
        }
    }

    private func archive(_ request: QueuedRequest, status: Int, message: String, kind: ArchiveKind) throws(ODataError) -> Result {
        let count = try file.withConnection { db throws(ODataError) -> Int in
            try db.transaction { () throws(ODataError) -> Int in
                try recorder.archive(request, status: status, message: message, kind: kind, in: db)
            }
        }
        return .settled(ConflictResolution.Settled(archived: count))
    }
}
