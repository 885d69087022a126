/// Builds an ``UploadPreview``: the steps ``Uploader`` or ``BatchUploader`` would take with the
/// queue as it is, each request built by the code they send it with (``UploadRequests``,
/// ``ChangeSetPlan``, ``BatchRequestBuilder``, ``BatchUploader/chunk(batchSize:groupByTransaction:first:following:)``),
/// in the same order: requests in doubt settled first (``InDoubtReconciler/approach(to:)``), then
/// per request or per `$batch` an ETag read where one is needed first (``ETagRecovery``), the CSRF
/// fetch before the first change, the change.
///
/// Reads the store only: nothing is sent, marked or stamped (the client id and first-sent dates
/// an upload would make are placeholders).
///
/// The service's answers are not known in advance, so the preview assumes each request is
/// applied: a request the service refuses would take the later requests on its entity to the
/// error archive, and a request in doubt the read finds applied is not sent again.
struct UploadPreviewer {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile
    let schema: StoreSchema
    var batch = false
    var batchSize = 100
    var groupByTransaction = false
    /// Whether the upload compacts the queue first (``QueueCompaction``), as it does unless turned off.
    var compactsQueue = true

    private var requests: UploadRequests { UploadRequests(serviceRoot: serviceRoot, dialect: dialect) }

    func preview() throws(ODataError) -> UploadPreview {
        let (queue, clientID, alternateKeys) = try file.withConnection { db throws(ODataError) in
            (try RequestQueueTable.all(in: db), try StoreInfoTable.value(RepeatableRequests.clientIDKey, in: db),
             try AlternateKeys.load(model: schema.model, in: db))
        }
        let repeatable = RepeatableRequests(model: schema.model, clientID: clientID ?? UploadPreviewPlaceholder.clientID)
        var steps: [UploadPreviewStep] = []
        var archived: Set<Int64> = []
        let reconciler = InDoubtReconciler(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file,
                                           schema: schema, repeatable: repeatable, alternateKeys: alternateKeys)
        for group in InDoubtReconciler.byEntity(queue.filter { $0.state == .inDoubt }) {
            let ids = group.map(\.id)
            switch try reconciler.approach(to: group) {
            case .sendAgain:
                continue
            case .findMedia(let table, _):
                steps.append(UploadPreviewStep(kind: .settle, requestIDs: ids, request: shown(requests.read(table.entitySet)),
                                               note: "media create \(Self.list(ids)) was sent and its answer was lost: the set is "
                                                   + "listed and the streams new to the store compared with the one sent; found, the "
                                                   + "entity is adopted (no second POST); not there, it is sent again; else archived"))
            case .read(let table, let entityID):
                steps.append(UploadPreviewStep(kind: .settle, requestIDs: ids, request: try read(entityID: entityID, of: table),
                                               note: "requests \(Self.list(ids)) were sent and their answer was lost: the entity is "
                                                   + "read, and those it has already are not sent again"))
            case .readByAlternateKey(let table, let values):
                let read = shown(requests.read(AlternateKeys.query(values, of: table, dialect: dialect)))
                steps.append(UploadPreviewStep(kind: .settle, requestIDs: ids, request: read,
                                               note: "requests \(Self.list(ids)) were sent and their answer was lost: the entity is "
                                                   + "looked for by its alternate key; found with the values sent, the create is not "
                                                   + "sent again and its key is taken; not found, it is sent again"))
            case .needsDecision(let reason):
                // They go to the error archive with the later requests on their entity.
                let entities = Set(group.compactMap(Self.entityKey))
                let followers = queue.filter { request in Self.entityKey(request).map(entities.contains) ?? false }.map(\.id)
                archived.formUnion(ids + followers)
                steps.append(UploadPreviewStep(kind: .archive, requestIDs: Array(Set(ids + followers)).sorted(), note: reason))
            }
        }
        let rows = PlannedRows.plannedRows(queue.filter { !archived.contains($0.id) }, compactsQueue: compactsQueue, schema: schema)
        steps += batch ? try batchSteps(rows, repeatable: repeatable) : try singleSteps(rows, repeatable: repeatable)
        return UploadPreview(batch: batch, steps: steps)
    }

    // MARK: - One request at a time

    private func singleSteps(_ rows: [QueuedRequest], repeatable: RepeatableRequests) throws(ODataError) -> [UploadPreviewStep] {
        let recovery = ETagRecovery(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema)
        var steps: [UploadPreviewStep] = []
        var lastOnEntity: [String: Int64] = [:]
        for queued in rows {
            var request = queued
            var note = ""
            if let key = Self.entityKey(request), let earlier = lastOnEntity[key], request.method != .post {
                // The answer to the earlier request gives the ETag this one is sent with.
                request.etag = UploadPreviewPlaceholder.answerETag(of: earlier)
                note = "after request \(earlier) on the same entity: its If-Match (and its key, if the service assigns it) "
                    + "comes from that answer"
            } else if recovery.needsETagFirst(request) {
                steps += try etagRead(for: request)
                request.etag = UploadPreviewPlaceholder.readETag
                note = "sent with the ETag the read finds, unless the entity changed on the service (then it is archived as a conflict)"
            }
            if !steps.contains(where: { $0.kind == .csrfFetch }) { steps.append(csrfFetch()) }
            let http = requests.single(request, csrf: UploadPreviewPlaceholder.csrfToken, extraHeaders: repeatHeaders(request, repeatable))
            steps.append(UploadPreviewStep(kind: .send, requestIDs: [queued.id], request: shown(http), note: note))
            if let key = Self.entityKey(request) { lastOnEntity[key] = queued.id }
        }
        return steps
    }

    // MARK: - $batch

    private func batchSteps(_ rows: [QueuedRequest], repeatable: RepeatableRequests) throws(ODataError) -> [UploadPreviewStep] {
        let recovery = ETagRecovery(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema)
        var steps: [UploadPreviewStep] = []
        var remaining = rows[...]
        var lastOnEntity: [String: Int64] = [:]
        while !remaining.isEmpty {
            let rest = remaining
            var chunk = try BatchUploader.chunk(
                batchSize: batchSize, groupByTransaction: groupByTransaction,
                first: { limit in Array(rest.prefix(limit)) },
                following: { id, limit in Array(rest.drop(while: { $0.id <= id }).prefix(limit)) })
            remaining = remaining.dropFirst(chunk.count)
            var notes: [String] = []
            for position in chunk.indices {
                let request = chunk[position]
                if let key = Self.entityKey(request), let earlier = lastOnEntity[key], request.method != .post {
                    chunk[position].etag = UploadPreviewPlaceholder.answerETag(of: earlier)
                    notes.append("request \(request.id) follows request \(earlier) of an earlier $batch on the same entity: "
                                 + "its If-Match (and its key, if the service assigns it) comes from that answer")
                } else if recovery.needsETagFirst(request, sentBefore: chunk[..<position]) {
                    steps += try etagRead(for: request)
                    chunk[position].etag = UploadPreviewPlaceholder.readETag
                }
            }
            if !steps.contains(where: { $0.kind == .csrfFetch }) { steps.append(csrfFetch()) }
            let plan = ChangeSetPlan.plan(chunk, groupByTransaction: groupByTransaction, contentIDReferences: dialect == .v4)
            let built = try BatchRequestBuilder().build(plan) { request in repeatHeaders(request, repeatable) }
            let http = requests.batch(built, csrf: UploadPreviewPlaceholder.csrfToken)
            steps.append(UploadPreviewStep(kind: .batch, requestIDs: chunk.map(\.id), request: shown(http),
                                           changeSets: plan.map { $0.map(\.request.id) }, note: notes.joined(separator: "; ")))
            for request in chunk { if let key = Self.entityKey(request) { lastOnEntity[key] = request.id } }
        }
        return steps
    }

    // MARK: - Pieces

    /// The read ``ETagRecovery`` makes before sending `request`.
    private func etagRead(for request: QueuedRequest) throws(ODataError) -> [UploadPreviewStep] {
        guard let setName = request.entitySet, let entityID = request.entityID, let table = schema.table(forEntitySet: setName) else { return [] }
        return [UploadPreviewStep(kind: .read, requestIDs: [request.id], request: try read(entityID: entityID, of: table),
                                  note: "request \(request.id) needs the entity's ETag (its set checks ETags, and none was queued)")]
    }

    /// The read of an entity by the key the store has for it (``ServedEntity/read``).
    private func read(entityID: Int64, of table: EntitySetTable) throws(ODataError) -> PreviewRequest {
        guard let url = try file.withConnection({ db throws(ODataError) in
            try ServedEntity.keyURL(entityID: entityID, of: table, dialect: dialect, in: db)
        }) else {
            throw ODataError(.notFound, "\(table.entitySet): the store has no key for entity \(entityID) to read it by")
        }
        return shown(requests.read(url))
    }

    private func csrfFetch() -> UploadPreviewStep {
        UploadPreviewStep(kind: .csrfFetch, requestIDs: [], request: shown(UploadRequests.csrfFetch(serviceRoot: serviceRoot)),
                          note: "the token the service answers, if any, is sent with every change below")
    }

    /// The repeatability headers `request` is sent with; a request not sent before gets its
    /// first-sent date when it leaves, shown as a placeholder.
    private func repeatHeaders(_ request: QueuedRequest, _ repeatable: RepeatableRequests) -> [HTTPHeader] {
        guard repeatable.applies(to: request) else { return [] }
        if request.firstSent != nil { return repeatable.headers(for: request) }
        var stamped = request
        stamped.firstSent = UploadPreviewPlaceholder.firstSent
        return repeatable.headers(for: stamped).map { header in
            header.name == "Repeatability-Request-ID"
                ? HTTPHeader(header.name, "\(repeatable.clientID)-\(request.id)-\(UploadPreviewPlaceholder.firstSent)") : header
        }
    }

    /// `request` with the headers the transport adds, credentials masked and placeholders marked.
    private func shown(_ request: HTTPRequest) -> PreviewRequest {
        let headers = transport.headersAsSent(for: request).map { header, masked in
            PreviewHeader(name: header.name, value: header.value,
                          shown: masked ? .masked : UploadPreviewPlaceholder.appears(in: header.value) ? .placeholder : .exact)
        }
        return PreviewRequest(method: request.method, url: redactedURL(request.url), headers: headers,
                              body: request.body.map { String(decoding: $0, as: UTF8.self) })
    }

    private static func entityKey(_ request: QueuedRequest) -> String? {
        guard let set = request.entitySet, let id = request.entityID else { return nil }
        return "\(set)\u{0}\(id)"
    }

    private static func list(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ", ") }
}
