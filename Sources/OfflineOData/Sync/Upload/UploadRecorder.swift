/// Records the service's answer to one queued request in the store, the same way whether the
/// request went alone or inside a `$batch`; the caller holds the transaction.
struct UploadRecorder {
    let schema: StoreSchema
    let dialect: Dialect

    /// The request leaves the queue and the entity takes the answer: the key the service gave a
    /// created entity, its new ETag, its removal after a DELETE, and no pending mark once nothing
    /// more is queued for it.
    ///
    /// `answer`: the response's body as ``AnswerVerdict`` parsed it when it checked the proof (nil
    /// for no body); recording never parses again, so nothing it could not read passes for proof.
    func acknowledge(_ request: QueuedRequest, _ response: HTTPResponse, answer: JSONValue?,
                     in db: SQLiteConnection) throws(ODataError) {
        try RequestQueueTable.remove(id: request.id, in: db)
        guard let setName = request.entitySet, let id = request.entityID, let table = schema.table(forEntitySet: setName) else { return }
        if request.method == .delete {
            try EntityDeletion.delete(entityID: id, from: table, on: db)
            return
        }
        if request.method == .post {
            let keys = ServerAssignedKey(table: table, dialect: dialect)
            let keyInBody = try answer.map { document throws(ODataError) in try keys.adopt(document, entityID: id, in: db) } ?? false
            // Without the entity in the answer, its URL names it (parsed only then: it costs a bind).
            if !keyInBody, let location = response.header("Location") ?? response.header("OData-EntityId") {
                try keys.adopt(location: location, model: schema.model, entityID: id, in: db)
            }
        }
        let newETag = Self.etag(of: response, answer: answer)
        if let newETag {
            // Its streams (its own, its stream properties') stay current with the change just made.
            if let type = schema.model.entityType(ofEntitySet: setName), !schema.model.streamNames(of: type).isEmpty {
                try StreamTable.followEntityETag(newETag, entitySet: setName, entityID: id, quotedTable: table.quotedName, in: db)
            }
            try db.prepare("UPDATE \(table.quotedName) SET \"_ood_etag\" = ?1 WHERE \"_ood_id\" = ?2").run([.text(newETag), .integer(id)])
        }
        // The requests still queued on this entity build on the change just accepted: their
        // If-Match is the version the service gave it now. An entity created offline had no
        // ETag when they were queued; without one in the answer, `*` says "as it exists".
        if let followUpETag = newETag ?? (request.method == .post ? "*" : nil) {
            try db.prepare("UPDATE ood_request_queue SET etag = ?1 WHERE entity_set = ?2 AND entity_id = ?3")
                .run([.text(followUpETag), .text(setName), .integer(id)])
        }
        if try RequestQueueTable.requests(entitySet: setName, entityID: id, in: db).isEmpty == false {
            // Later changes wait: the values the service has now are the saved ones with this change.
            // The body was checked when the change was made; one that no longer reads (a changed
            // model) leaves the saved values as they were, so a later 428 sees a conflict, never
            // a match that is not there.
            if let body = request.body, try OriginalValues.areSaved(entityID: id, of: table, on: db),
               let values = try? EntityBody(json: Array(body.utf8), table: table, dialect: dialect).values {
                try OriginalValues.accept(values, entityID: id, of: table, on: db)
            }
        } else {
            try db.prepare("UPDATE \(table.quotedName) SET \"_ood_change\" = NULL WHERE \"_ood_id\" = ?1 AND \"_ood_change\" IS NOT 'deleted'")
                .run([.integer(id)])
            try OriginalValues.forget(entitySet: setName, entityID: id, on: db)
        }
    }

    /// Archives `request` and the later requests on its entity (they build on a change the service
    /// refused); marks the entity in error; returns how many were archived.
    func archive(_ request: QueuedRequest, status: Int?, message: String, kind: ArchiveKind = .refused,
                 in db: SQLiteConnection) throws(ODataError) -> Int {
        try archive([request], status: status, message: message, kind: kind, in: db)
    }

    /// Archives the requests of a change set the service refused as a whole, then the later
    /// requests on their entities; returns how many were archived.
    func archive(_ requests: [QueuedRequest], status: Int?, message: String, kind: ArchiveKind = .refused,
                 in db: SQLiteConnection) throws(ODataError) -> Int {
        var count = 0
        for request in requests where try RequestQueueTable.contains(id: request.id, in: db) {
            try RequestQueueTable.archive(id: request.id, httpStatus: status, message: message, kind: kind, in: db)
            count += 1
        }
        let reason = kind == .inDoubt ? "(it needs a decision)" : status.map { "(\($0))" } ?? "(its change set failed)"
        for request in requests {
            guard let setName = request.entitySet, let id = request.entityID else { continue }
            for follower in try RequestQueueTable.requests(entitySet: setName, entityID: id, in: db) {
                try RequestQueueTable.archive(id: follower.id, httpStatus: nil, message: "not sent: an earlier request on the same "
                                              + "entity was \(kind == .inDoubt ? "left in doubt" : "refused") \(reason)", kind: kind, in: db)
                count += 1
            }
            if let table = schema.table(forEntitySet: setName) {
                try db.prepare("UPDATE \(table.quotedName) SET \"_ood_error\" = 1 WHERE \"_ood_id\" = ?1").run([.integer(id)])
            }
        }
        return count
    }

    /// The entity's new ETag: the `ETag` header, or the one in the answer's body (V4 or V2).
    static func etag(of response: HTTPResponse, answer body: JSONValue?) -> String? {
        // An ETag with CR, LF or NUL could not go into an If-Match header: not kept.
        if let header = response.header("ETag"), !header.isEmpty { return HTTPOptions.containsLineBreakOrNUL(header) ? nil : header }
        guard let body else { return nil }
        return (body["@odata.etag"]?.stringValue ?? body["d"]?["__metadata"]?["etag"]?.stringValue)
            .flatMap { HTTPOptions.containsLineBreakOrNUL($0) ? nil : $0 }
    }
}
