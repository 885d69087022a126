/// Uploads a media entity created offline (issue 35, docs/MEDIA.md): the media `POST` of its
/// stream to the entity set, streamed from the file (never in `$batch`, which the protocol does not
/// allow for media), then the `PATCH` of its properties at the address the service gave, then a
/// read of the entity for its key, ETag and media ETag.
///
/// The queued create is one request of the queue: it was marked sent (in doubt) before the `POST`
/// left, and is recorded applied only once all three steps answered. An upload stopped between
/// them leaves it in doubt; the next upload's ``InDoubtReconciler`` looks for the entity by its
/// stream (``MediaCreateFinder``): found, the upload adopts it (``finish(_:at:etag:csrf:cancellation:)``,
/// no second `POST`); clearly not there, the create is sent again; else it goes to the error
/// archive for a decision. So an interrupted upload never creates two media entities and never
/// loses the local one.
struct MediaUpload {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let folder: StreamFolder

    /// The record of the stream written offline that `request` sends, if any: the entity it
    /// creates (a media `POST`), or the stream it replaces (a `PUT` of `Set(key)/$value`, or of
    /// `Set(key)/Prop` for a V4 stream property).
    static func localStream(of request: QueuedRequest, schema: StoreSchema, file: StoreFile) throws(ODataError) -> StreamRecord? {
        guard let set = request.entitySet, let id = request.entityID, let type = schema.model.entityType(ofEntitySet: set) else { return nil }
        let property: String
        if request.method == .post, type.hasStream {
            property = ""
        } else if request.method == .put, let name = streamProperty(ofQueuedURL: request.url, type: type, model: schema.model) {
            property = name
        } else {
            return nil
        }
        let record = try file.withConnection { db throws(ODataError) in
            try StreamTable.record(entitySet: set, entityID: id, property: property, in: db)
        }
        return record?.state == .local ? record : nil
    }

    /// The stream a queued `PUT` replaces: `""` for `Set(key)/$value` of a media entity, the
    /// name for `Set(key)/Prop` of a stream property of `type`; nil for any other URL.
    static func streamProperty(ofQueuedURL url: String, type: EntityType, model: MetadataModel) -> String? {
        if url.hasSuffix("/$value") { return type.hasStream ? "" : nil }
        guard let slash = url.lastIndex(of: "/") else { return nil }
        let name = String(url[url.index(after: slash)...])
        return model.streamProperties(of: type).contains(name) ? name : nil
    }

    /// Sends the three requests; gives the `POST`'s answer (what ``AnswerVerdict`` judges) with
    /// its body replaced by the entity as read at the end, or the `POST`'s own answer when the
    /// service did not take it.
    /// `bodyProgress` is told the stream's bytes as they leave.
    func send(_ request: QueuedRequest, stream: StreamRecord, csrf: String?, extraHeaders: [HTTPHeader],
              bodyProgress: HTTPBodyFileProgress? = nil, cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        let requests = UploadRequests(serviceRoot: serviceRoot, dialect: dialect)
        var headers = [HTTPHeader("Accept", "application/json"),
                       HTTPHeader("Content-Type", stream.contentType ?? "application/octet-stream")] + requests.versionHeaders
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        var post = HTTPRequest(method: "POST", url: ServiceURL.resolve(request.url, against: serviceRoot), headers: headers + extraHeaders)
        post.bodyFile = folder.filePath(stream.file)
        post.bodyFileProgress = bodyProgress
        let created = try transport.send(post, cancellation: cancellation)
        guard created.status == 201 || created.status == 200 || created.status == 204 else { return created }
        let label = "POST \(redactedURL(post.url)) (a media entity)"
        // The new entity's address: `Location` (or `OData-EntityId`), on the service's origin only.
        guard let location = created.header("Location") ?? created.header("OData-EntityId") else {
            throw ODataError(.http, "\(label): the service created it without saying where (no Location)")
        }
        let address = ServiceURL.resolveReference(location, against: post.url)
        try ServiceURL.checkSameOrigin(address, as: serviceRoot, what: "\(label): the Location")
        let answered = try? JSONValue.parse(created.body)
        return try finish(request, at: address, etag: UploadRecorder.etag(of: created, answer: answered), csrf: csrf,
                          cancellation: cancellation)
    }

    /// The steps after the `POST`, for the entity the service created at `address` (absolute):
    /// the `PATCH` of the properties (with `etag`, the version the create made, or `*`), then the
    /// read. Also how a create found applied after its answer was lost is completed.
    func finish(_ request: QueuedRequest, at address: String, etag: String?, csrf: String?,
                cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        let requests = UploadRequests(serviceRoot: serviceRoot, dialect: dialect)
        // The properties, with the version the create made.
        if let body = request.body, body != "{}" {
            var patchHeaders = [HTTPHeader("Accept", "application/json"), HTTPHeader("Content-Type", "application/json")]
                + requests.versionHeaders
            patchHeaders.append(HTTPHeader("If-Match", etag ?? "*"))
            if let csrf { patchHeaders.append(HTTPHeader(CSRFToken.header, csrf)) }
            let patch = try transport.send(HTTPRequest(method: dialect == .v2 ? "MERGE" : "PATCH", url: address, headers: patchHeaders,
                                                       body: Array(body.utf8)), cancellation: cancellation)
            guard (200..<300).contains(patch.status) else {
                var error = transport.serviceError(patch, request: "PATCH \(redactedURL(address))")
                error.message += " (the media entity was created; its properties were not set: the create stays in doubt)"
                throw error
            }
        }
        let read = try transport.send(HTTPRequest(method: "GET", url: address,
                                                  headers: [HTTPHeader("Accept", "application/json")] + requests.versionHeaders),
                                      cancellation: cancellation)
        guard read.status == 200 else {
            var error = transport.serviceError(read, request: "GET \(redactedURL(address))")
            error.message += " (the media entity was created: the create stays in doubt)"
            throw error
        }
        return HTTPResponse(status: 201, headers: read.headers.filter { asciiLowercased($0.name) != "location" } + [HTTPHeader("Location", address)],
                            body: read.body)
    }

    /// The stream records of the entity a `DELETE` removed (its own, its stream properties'),
    /// taken out of the store with it (their files are removed after the commit,
    /// ``removeFile(of:storePath:)``); none for other requests.
    static func forgetStreams(ofDeleted request: QueuedRequest, in db: SQLiteConnection) throws(ODataError) -> [StreamRecord] {
        guard request.method == .delete, let set = request.entitySet, let id = request.entityID else { return [] }
        let records = try StreamTable.records(entitySet: set, entityID: id, in: db)
        if !records.isEmpty { try StreamTable.delete(entitySet: set, entityID: id, property: nil, in: db) }
        return records
    }

    static func removeFile(of record: StreamRecord, storePath: String) {
        let folder = StreamFolder(storePath: storePath)
        folder.remove(record.file)
        folder.removePart(record.file)
    }

    /// Whether a queued URL addresses a media entity's stream (`Documents(1)/$value`).
    static func isStreamURL(_ url: String) -> Bool { url.hasSuffix("/$value") }

    /// The entity's address in a queued stream URL: what comes before `/$value` or `/Prop`.
    static func entityURL(ofStreamURL url: String) -> String {
        guard let slash = url.lastIndex(of: "/") else { return url }
        return String(url[..<slash])
    }

    /// Sends a stream replaced offline: the `PUT` of `Set(key)/$value`, streamed from the file,
    /// with the entity's ETag as `If-Match` (none known: `*`) as for any update of it: services
    /// check the entity's version there (odatapy answers 412 to the media ETag), then the read of the
    /// entity for its ETag and media ETag. Gives that read as the answer (what ``AnswerVerdict``
    /// judges), or the `PUT`'s own answer when the service did not take it.
    func replace(_ request: QueuedRequest, stream: StreamRecord, csrf: String?, extraHeaders: [HTTPHeader],
                 bodyProgress: HTTPBodyFileProgress? = nil, cancellation: HTTPCancellation?) throws(ODataError) -> HTTPResponse {
        let requests = UploadRequests(serviceRoot: serviceRoot, dialect: dialect)
        var headers = [HTTPHeader("Accept", "application/json"),
                       HTTPHeader("Content-Type", stream.contentType ?? "application/octet-stream"),
                       HTTPHeader("If-Match", request.etag ?? "*")] + requests.versionHeaders
        if let csrf { headers.append(HTTPHeader(CSRFToken.header, csrf)) }
        var put = HTTPRequest(method: "PUT", url: ServiceURL.resolve(request.url, against: serviceRoot), headers: headers + extraHeaders)
        put.bodyFile = folder.filePath(stream.file)
        put.bodyFileProgress = bodyProgress
        let replaced = try transport.send(put, cancellation: cancellation)
        guard (200..<300).contains(replaced.status) else { return replaced }
        let entityURL = Self.entityURL(ofStreamURL: request.url)
        let read = try transport.send(requests.read(entityURL), cancellation: cancellation)
        guard read.status == 200 else {
            var error = transport.serviceError(read, request: "GET \(redactedURL(entityURL))")
            error.message += " (the stream was replaced: the PUT stays in doubt and is sent again, which replaces it with the same bytes)"
            throw error
        }
        return HTTPResponse(status: 200, headers: read.headers, body: read.body)
    }

    /// After the create or the replacement is recorded: the stream is the service's now, with its media ETag and the
    /// entity's ETag (so the next download leaves it alone).
    static func recordUploaded(_ stream: StreamRecord, answer: JSONValue?, response: HTTPResponse, in db: SQLiteConnection) throws(ODataError) {
        var record = stream
        record.state = .complete
        let entity = answer?["d"] ?? answer
        record.etag = record.property.isEmpty
            ? entity?["@odata.mediaEtag"]?.stringValue ?? entity?["__metadata"]?["media_etag"]?.stringValue
            : entity?["\(record.property)@odata.mediaEtag"]?.stringValue
        record.entityETag = UploadRecorder.etag(of: response, answer: answer)
        try StreamTable.save(record, in: db)
    }
}
