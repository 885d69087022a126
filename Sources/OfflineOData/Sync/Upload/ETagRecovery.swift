/// A service that wants `If-Match` (it answers a change without one `428 Precondition Required`)
/// but sent no ETag with the entity in the collection: some V4 services give `@odata.etag` only
/// on single-entity reads.
///
/// The entity is read by key and compared with the values the store had before its local
/// changes (kept in ``OriginalValues`` since the first one). Equal: nobody changed it meanwhile,
/// so the read's ETag is the version the change was made on, and the request is sent again with
/// it. Different: someone changed the entity on the service; sending the change would overwrite
/// theirs, so it is archived as a ``ArchiveKind/conflict``. `If-Match: *` is never sent for a
/// change made on downloaded data.
struct ETagRecovery {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema

    private var recorder: UploadRecorder { UploadRecorder(schema: schema, dialect: dialect) }

    enum Result {
        /// The request has the served ETag now: send it again.
        case retry
        /// Archived (a conflict, or the entity is gone): `count` requests with those behind it.
        case archived(count: Int)
    }

    func recover(_ request: QueuedRequest, answer: HTTPResponse, cancellation: HTTPCancellation?) throws(ODataError) -> Result {
        let label = "\(request.method) \(redactedURL(request.url))"
        guard let setName = request.entitySet, let entityID = request.entityID, let table = schema.table(forEntitySet: setName) else {
            let message = ServiceError.from(answer, request: label).message
            return .archived(count: try archive(request, status: 428, message: message, kind: .refused))
        }
        let served = try ServedEntity.read(entityID: entityID, of: table, dialect: dialect, serviceRoot: serviceRoot,
                                           transport: transport, file: file, cancellation: cancellation)
        guard let served else {
            return .archived(count: try archive(request, status: 404, message: "\(label): the service wants an ETag (428) and "
                                                + "the entity is no longer there (404)", kind: .refused))
        }
        guard let etag = served.etag, !etag.isEmpty else {
            return .archived(count: try archive(request, status: 428, message: "\(label): the service wants an ETag (428) and "
                                                + "sends none for the entity", kind: .refused))
        }
        let original = try file.withConnection { db throws(ODataError) in
            try OriginalValues.values(entityID: entityID, of: table, on: db)
        }
        guard served.agrees(with: original) else {
            return .archived(count: try archive(request, status: 428, message: "\(label): the entity changed on the service since "
                                                + "it was downloaded (its values differ from those the local change was made on); "
                                                + "not sent, so the other change is not overwritten", kind: .conflict))
        }
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.setETag(etag, id: request.id, in: db)
            }
        }
        return .retry
    }

    private func archive(_ request: QueuedRequest, status: Int, message: String, kind: ArchiveKind) throws(ODataError) -> Int {
        try file.withConnection { db throws(ODataError) -> Int in
            try db.transaction { () throws(ODataError) -> Int in
                try recorder.archive(request, status: status, message: message, kind: kind, in: db)
            }
        }
    }
}
