/// An offline store: a store file with its service's model, its defining requests and its tables.
///
/// A store is made once from a `$metadata` document (``create(path:metadata:dialect:definingRequests:serviceRoot:)``),
/// which it keeps, so that ``open(path:)`` needs no service. It speaks one OData dialect, the
/// service's: V2 stores accept V2 URL syntax and answer in V2 JSON, V4 stores likewise.
package final class LocalStore: @unchecked Sendable {
    package let file: StoreFile
    package let model: MetadataModel
    package let schema: StoreSchema
    package let dialect: Dialect

    /// The service root, kept in memory so that reads need not wait for the write connection.
    private var cachedServiceRoot: String?
    /// Binds URLs for counting the shapes of defining requests (``withBindingReader(_:)``); made
    /// on first use, guarded by `readerLock`.
    private var localReader: LocalReader?
    /// The limits on a read's URL (``setRequestLimits(_:)``); guarded by `readerLock`.
    private var requestLimits = LocalReader.defaultParserLimits
    private let readerLock = Lock()
    /// Writes the entities creates answer with; used only inside the write connection's lock
    /// (``StoreFile/withConnection(_:)``), which serializes every write.
    private let createdEntityAnswers = CreatedEntityAnswers()
    /// What one local write works out for the next; under the same lock (see ``LocalWriteCache``).
    private let localWriteCache = LocalWriteCache()
    /// The shapes of the reads answered, for automatic indexes (``createAutomaticIndexes(threshold:)``).
    let readShapes = ReadShapeCounter(dueAt: LocalStore.automaticIndexThreshold)
    /// Resolutions of reads and creates kept across requests (see ``RequestResolutionCache``).
    let resolutions = RequestResolutionCache()
    /// The validators of the service's `$metadata` as this handle last read or wrote them, so a
    /// check (every download's first step) reads nothing from the file (``ServiceModelRecord``).
    let serviceModelRecord = Protected<ServiceModelRecord?>(nil)

    /// The transport to the service, made on first use; guarded by `transportLock`.
    private var transport: HTTPTransport?
    private var httpOptions = HTTPOptions()
    private let transportLock = Lock()
    /// How much room media streams may take (``setStreamLimits(_:)``, docs/MEDIA.md).
    let streamLimits = Protected(StreamLimits())

    private init(file: StoreFile, model: MetadataModel, schema: StoreSchema, dialect: Dialect) throws(ODataError) {
        self.file = file
        self.model = model
        self.schema = schema
        self.dialect = dialect
        cachedServiceRoot = try file.withConnection { db throws(ODataError) in try StoreInfoTable.value("service_root", in: db) }
    }

    /// The same store file under another model, once a migration wrote it there
    /// (``ModelMigration``): the service settings and URL limits carry over, caches start empty.
    func adopting(model: MetadataModel, schema: StoreSchema) throws(ODataError) -> LocalStore {
        let adopted = try LocalStore(file: file, model: model, schema: schema, dialect: dialect)
        adopted.setHTTPOptions(transportLock.withLock { httpOptions })
        adopted.setRequestLimits(currentRequestLimits)
        adopted.streamLimits.withLock { $0 = streamLimits.withLock { $0 } }
        return adopted
    }

    /// Makes a new store at `path` for the service described by `metadata`.
    ///
    /// - Parameters:
    ///   - dialect: the OData dialect; by default the document's (V1 to V3 documents speak V2).
    ///   - definingRequests: named reads whose results the store will hold; each must read a
    ///     collection of the model (a function import is refused).
    ///   - acceptsEmptyFile: an empty file at `path` may become the store (see ``StoreFile/init(path:acceptsEmptyFile:)``).
    ///   - indexes: indexes to make beside the key's (``IndexDeclaration``), checked before the
    ///     file is made.
    /// - Throws: ``ODataError/Code/metadata`` for a broken document, ``ODataError/Code/misuse``
    ///   when the file already holds a store with a model, and the errors of the defining requests.
    package static func create(path: String, metadata: String, dialect: Dialect? = nil,
                              definingRequests: [DefiningRequest] = [], serviceRoot: String? = nil,
                              acceptsEmptyFile: Bool = false, indexes: [IndexDeclaration] = [],
                              key: StoreKey? = nil) throws(ODataError) -> LocalStore {
        if let serviceRoot { try ServiceURL.checkServiceRoot(serviceRoot) }
        let model = try MetadataReader.read(metadata)
        let schema = try StoreSchema(model: model)
        let chosenDialect = dialect ?? (model.version.usesV4Protocol ? .v4 : .v2)
        for request in definingRequests {
            try DefiningRequestCheck.check(request, model: model, dialect: chosenDialect)
        }
        var resolvedIndexes: [ResolvedIndex] = []
        for declaration in indexes { resolvedIndexes.append(try declaration.resolved(in: schema)) }
        let file = try StoreFile(path: path, acceptsEmptyFile: acceptsEmptyFile, key: key)
        do throws(ODataError) {
            try file.requireWritable()
            try file.withConnection { db throws(ODataError) in
                guard try StoreInfoTable.value("metadata", in: db) == nil else {
                    throw ODataError(.misuse, "'\(path)' already holds a store for a service: open it instead of creating it")
                }
                try db.transaction { () throws(ODataError) in
                    for statement in schema.createStatements { try db.execute(statement) }
                    try StoreInfoTable.setValue(metadata, for: "metadata", in: db)
                    try StoreInfoTable.setValue(chosenDialect == .v4 ? "v4" : "v2", for: "dialect", in: db)
                    try StoreInfoTable.setValue(serviceRoot, for: "service_root", in: db)
                    try StoreInfoTable.setValue("1", for: StoreSchema.instantOffsetsKey, in: db)
                    try DefiningRequestTable.replace(with: definingRequests, in: db)
                    for index in resolvedIndexes {
                        try db.execute(index.createStatement)
                        try IndexTable.record(index, origin: .declared, reason: IndexDeclaration.declaredReason, in: db)
                    }
                }
            }
        } catch {
            file.close()
            throw error
        }
        do throws(ODataError) {
            return try LocalStore(file: file, model: model, schema: schema, dialect: chosenDialect)
        } catch {
            file.close()
            throw error
        }
    }

    /// Opens a store made by ``create(path:metadata:dialect:definingRequests:serviceRoot:)``.
    ///
    /// - Throws: ``ODataError/Code/notAStore`` when the file is not a store or holds no model.
    package static func open(path: String, key: StoreKey? = nil) throws(ODataError) -> LocalStore {
        try open(file: try StoreFile(path: path, acceptsEmptyFile: false, key: key))
    }

    /// The store over an open `file` (closed when it holds no store).
    private static func open(file: StoreFile) throws(ODataError) -> LocalStore {
        let path = file.path
        do throws(ODataError) {
            let (metadata, dialectText, offsets) = try file.withConnection { db throws(ODataError) in
                (try StoreInfoTable.value("metadata", in: db), try StoreInfoTable.value("dialect", in: db),
                 try StoreInfoTable.value(StoreSchema.instantOffsetsKey, in: db))
            }
            guard let metadata else {
                throw ODataError(.notAStore, "'\(path)' is a store without a service model: create it with a $metadata document")
            }
            let model = try MetadataReader.read(metadata)
            let schema = try StoreSchema(model: model, keepingInstantOffsets: offsets == "1")
            return try LocalStore(file: file, model: model, schema: schema, dialect: dialectText == "v4" ? .v4 : .v2)
        } catch {
            file.close()
            throw error
        }
    }

    /// Opens the store at `path`, or makes it when the file is missing or holds no model yet
    /// (`metadata` is asked for only then). Returns whether it was made.
    package static func openOrCreate(path: String, metadata: () throws(ODataError) -> String, dialect: Dialect? = nil,
                                    definingRequests: [DefiningRequest] = [], serviceRoot: String? = nil,
                                    acceptsEmptyFile: Bool = false,
                                    key: StoreKey? = nil) throws(ODataError) -> (store: LocalStore, created: Bool) {
        let probe = try StoreFile(path: path, acceptsEmptyFile: acceptsEmptyFile, key: key)
        let hasModel: Bool
        do throws(ODataError) {
            hasModel = try probe.withConnection { db throws(ODataError) in try StoreInfoTable.value("metadata", in: db) != nil }
        } catch {
            probe.close()
            throw error
        }
        // The probe is the store: reopening would lose what opening it found (``StoreFile/recoveryFindings``).
        if hasModel { return (try open(file: probe), false) }
        probe.close()
        return (try create(path: path, metadata: try metadata(), dialect: dialect, definingRequests: definingRequests,
                           serviceRoot: serviceRoot, key: key), true)
    }

    /// The service root recorded at creation, if any.
    package func serviceRoot() throws(ODataError) -> String? {
        readerLock.withLock { cachedServiceRoot }
    }

    /// Changes where downloads and uploads go, in the file: from now on, for every session.
    /// The delta links of the old root are dropped with it, so the next download is a full one.
    package func setServiceRoot(_ root: String) throws(ODataError) {
        try ServiceURL.checkServiceRoot(root)
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                let stored = try StoreInfoTable.value("service_root", in: db)
                try StoreInfoTable.setValue(root, for: "service_root", in: db)
                if let stored, stored != root { try DefiningRequestTable.dropDeltaLinks(in: db) }
            }
        }
        adoptServiceRoot(root)
    }

    /// Sends this session's downloads and uploads to `root`. The file keeps it only when `saving`
    /// or when it has no root yet (``setServiceRoot(_:)``); otherwise the file's root stays, as for
    /// a tool command's `--service`, and delta links stored for another service are not followed
    /// there (see ``download(subset:full:pageSize:cancellation:progress:)``).
    package func useServiceRoot(_ root: String, saving: Bool) throws(ODataError) {
        try ServiceURL.checkServiceRoot(root)
        let stored = try serviceRoot()
        if stored == root { return }
        if saving || stored == nil { try setServiceRoot(root) } else { adoptServiceRoot(root) }
    }

    private func adoptServiceRoot(_ root: String) {
        // Responses name the service root (context URLs, V2 entity URIs): the next read gets a new reader.
        readerLock.withLock {
            cachedServiceRoot = root
            localReader = nil
        }
        file.invalidateReadAttachments()
    }

    package func definingRequests() throws(ODataError) -> [DefiningRequest] { try file.definingRequests() }

    /// Replaces the defining requests, after checking each against the model.
    package func setDefiningRequests(_ requests: [DefiningRequest]) throws(ODataError) {
        for request in requests { try DefiningRequestCheck.check(request, model: model, dialect: dialect) }
        try file.setDefiningRequests(requests)
    }

    /// Runs one OData request against the store: reads are answered from the tables, writes go
    /// through ``write(method:url:body:)``.
    package func execute(method: String, url: String, body: [UInt8]? = nil, transactionID: String? = nil,
                        mergeable: Bool = true) throws(ODataError) -> StoreResponse {
        let resolved = try resolver().resolve(method: method, url: url)
        if resolved.isRead { return try read(resolved) }
        let outcome = try write(resolved, body: body, transactionID: transactionID, mergeable: mergeable)
        return outcome.response(shape: AnswerShape(answering: resolved, model: model))
    }

    /// Resolves requests to this store: its URL limits, its kept resolutions of reads and creates.
    func resolver() -> RequestResolver {
        RequestResolver(model: model, dialect: dialect, limits: currentRequestLimits, cache: resolutions)
    }

    /// The limits on a request's URL now (``setRequestLimits(_:)``).
    var currentRequestLimits: ODataURLParser.Limits { readerLock.withLock { requestLimits } }

    /// What the store would do for the read `url`: the SQL and its parameters, and which defining
    /// requests provably hold every entity the read can return.
    ///
    /// "Inside" is proven from the filters (conjunctions of comparisons, `in` lists, keys); a read
    /// outside every defining request can still return entities that another request brought, but
    /// it may miss entities the service has.
    package func explain(url: String) throws(ODataError) -> StoreExplanation {
        let definingRequests = try definingRequests()
        // The read is bound once, each defining request once: 1 + k binds for k defining requests.
        let resolver = resolver()
        let read = try LocalReader.readable(resolver.resolve(method: .get, url: url).boundForOfflineStore())
        let inside = definingRequests.filter { definingRequest in
            guard let defining = try? resolver.resolve(method: .get, url: definingRequest.url).boundForOfflineStore() else { return false }
            return ScopeCheck.isInside(read: read, defining: defining)
        }.map(\.name)
        // Translated on the read connection, by the indexes the store has now (a paged
        // navigation filter's SQL depends on them).
        let (explanation, plan) = try file.withReadConnection { db, attachment throws(ODataError) in
            let reader = try readerFor(attachment: &attachment)
            return (try ReadTranslation.explain(read, schema: schema, indexed: try reader.currentIndexes(on: db), probe: db),
                    try reader.queryPlan(read, on: db))
        }
        return StoreExplanation(sql: explanation.sql, parameters: explanation.parameters, countSQL: explanation.countSQL,
                                insideDefiningRequests: inside, plan: plan)
    }

    /// Answers the resolved read `request` on a read connection of its own, beside other reads and
    /// writes; its bound form is read as it is (no parsing again).
    func read(_ request: ResolvedRequest) throws(ODataError) -> StoreResponse {
        switch request.binding {
        case .failure:
            // A request that did not bind (or calls an operation) fails here, before any connection.
            _ = try request.boundForOfflineStore()
        case .success(let bound):
            // A media entity's `$value` is answered from its stream file, not from a table.
            switch bound.target {
            case .mediaValue, .streamProperty: return try mediaValue(bound)
            default: break
            }
        }
        let root = try serviceRoot() ?? ""
        let limits = currentRequestLimits
        let result = try file.withReadConnection(snapshot: !request.readsInOneStatement) { db, attachment throws(ODataError) -> ReadResult in
            try readerFor(attachment: &attachment, serviceRoot: root, limits: limits).read(request, on: db)
        }
        return result.response
    }

    /// The reader kept with a read connection (its statement cache belongs to it), made anew
    /// when the limits changed or another handle made it: the pool's connections outlive a model
    /// adoption (``adopting(model:schema:)``), and a reader of the old model would read columns
    /// the tables no longer have. Its `readShapes` is this handle's own counter, so it tells.
    private func readerFor(attachment: inout AnyObject?, serviceRoot: String? = nil,
                           limits: ODataURLParser.Limits? = nil) throws(ODataError) -> LocalReader {
        let limits = limits ?? currentRequestLimits
        if let kept = attachment as? LocalReader, kept.readShapes === readShapes, kept.parser.limits == limits {
            return kept
        }
        var root = serviceRoot
        if root == nil { root = try self.serviceRoot() }
        let reader = LocalReader(model: model, schema: schema, dialect: dialect, serviceRoot: root ?? "", parserLimits: limits)
        reader.readShapes = readShapes
        attachment = reader
        return reader
    }

    /// A reader for binding alone (automatic indexes count the shapes of defining requests);
    /// guarded by `readerLock`, as its parser and binder are not shared between threads.
    func withBindingReader<T>(_ body: (LocalReader) throws(ODataError) -> T) throws(ODataError) -> T {
        try readerLock.withLock { () throws(ODataError) -> T in
            if let localReader, localReader.parser.limits == requestLimits { return try body(localReader) }
            let made = LocalReader(model: model, schema: schema, dialect: dialect, serviceRoot: cachedServiceRoot ?? "",
                                   parserLimits: requestLimits)
            localReader = made
            return try body(made)
        }
    }

    /// Applies a local create, update or delete and queues it for upload, in one transaction.
    ///
    /// - Parameters:
    ///   - method: `POST`, `PUT`, `PATCH`, `MERGE` (V2 stores) or `DELETE`.
    ///   - url: relative to the service root, in the store's dialect (`TravelagencyCollection('00000001')`).
    ///   - body: the entity's JSON (for all methods but DELETE).
    /// - Throws: ``ODataError/Code/syntax`` or ``ODataError/Code/semantic`` for a request the model
    ///   does not allow, ``ODataError/Code/constraint`` for values the model forbids or a duplicate
    ///   key, ``ODataError/Code/notFound`` for an entity the store does not have, and
    ///   ``ODataError/Code/unsupported`` for operations. Nothing is changed or queued then.
    ///   - transactionID: requests with the same id are uploaded in one change set by
    ///     `upload(batch: true, groupByTransaction: true)`.
    ///   - mergeable: false keeps the queued request as it is when the queue is compacted
    ///     (``compactQueue()``): it is sent alone, never merged with others or dropped.
    package func write(method: String, url: String, body: [UInt8]? = nil, transactionID: String? = nil,
                      mergeable: Bool = true) throws(ODataError) -> WriteOutcome {
        try write(resolver().resolve(method: method, url: url), body: body, transactionID: transactionID, mergeable: mergeable)
    }

    /// Applies the resolved write `request` (see ``write(method:url:body:transactionID:)``); its
    /// bound form is used as it is.
    func write(_ request: ResolvedRequest, body: [UInt8]?, transactionID: String?, mergeable: Bool = true) throws(ODataError) -> WriteOutcome {
        let writer = LocalWriter(model: model, schema: schema, dialect: dialect, transactionID: transactionID, mergeable: mergeable,
                                 serviceRoot: try serviceRoot() ?? "", answers: createdEntityAnswers,
                                 cache: localWriteCache)
        return try file.withConnection { db throws(ODataError) in try writer.write(request, body: body, on: db) }
    }

    /// Reverts the local changes of the entity at `url` (addressed by its key): see ``LocalUndo``.
    /// - Throws: ``ODataError/Code/notFound`` when the store has no such entity; the URL's errors.
    package func undoPendingChanges(url: String) throws(ODataError) -> UndoOutcome {
        let undo = LocalUndo(model: model, schema: schema, dialect: dialect)
        return try file.withConnection { db throws(ODataError) in try undo.undo(url: url, on: db) }
    }

    /// Sets the limits on a read's URL (its length, nesting and operators; see
    /// ``ODataStore/Options/requestLimits``), for the reads that start after.
    package func setRequestLimits(_ limits: ODataURLParser.Limits) {
        readerLock.withLock { requestLimits = limits }
    }

    // MARK: - The service

    /// Sets timeouts, TLS, credentials, headers and cookies for the requests to the service; takes
    /// effect for the next request, also while a download or an upload runs.
    package func setHTTPOptions(_ options: HTTPOptions) {
        transportLock.withLock {
            httpOptions = options
            transport?.update(options)
        }
    }

    func serviceTransport() throws(ODataError) -> HTTPTransport {
        try transportLock.withLock { () throws(ODataError) -> HTTPTransport in
            if let transport { return transport }
            let made = try HTTPTransport(options: httpOptions)
            transport = made
            return made
        }
    }

    func requireServiceRoot() throws(ODataError) -> String {
        guard let root = try serviceRoot(), !root.isEmpty else {
            throw ODataError(.misuse, "the store has no service root: give one when creating it (--service)")
        }
        return root
    }

    /// Downloads the defining requests (all, or those named in `subset`), one transaction each.
    ///
    /// A defining request with a delta link from its last download gets only the changes (unless
    /// `full`); otherwise the whole result is downloaded and whatever the request no
    /// longer returns leaves the store, unless another defining request holds it or it has a
    /// pending local change. A failed download leaves that request's previous data whole; the
    /// requests downloaded before it keep their new data.
    ///
    /// - Parameters:
    ///   - pageSize: asked of V4 services with `Prefer: odata.maxpagesize`.
    ///   - progress: after every page; returning true stops the download (``ODataError/Code/aborted``).
    package func download(subset: [String]? = nil, full: Bool = false, pageSize: Int? = nil,
                         cancellation: HTTPCancellation? = nil,
                         progress: (DownloadProgress) -> Bool = { _ in false }) throws(ODataError) -> [DownloadOutcome] {
        let all = try definingRequests()
        var chosen = all
        if let subset {
            for name in subset where !all.contains(where: { $0.name == name }) {
                throw ODataError(.misuse, "the store has no defining request named '\(name)'")
            }
            chosen = all.filter { subset.contains($0.name) }
        }
        let root = try requireServiceRoot()
        let downloader = Downloader(transport: try serviceTransport(), serviceRoot: root, dialect: dialect,
                                    preferredPageSize: pageSize)
        try file.requireWritable()
        var outcomes: [DownloadOutcome] = []
        for request in chosen {
            // A delta link of another service (the root changed since, or this session uses
            // another) is never followed there: this download is a full one.
            let isDelta = !full && request.deltaLink.map { ServiceURL.belongs($0, to: root) } == true
            // For the store's statistics and sync log (``recordDownload(_:startedAt:in:)``).
            let started = WriteHolder.monotonicSeconds()
            var reached: DownloadProgress?
            do throws(ODataError) {
                let outcome = try file.withConnection { db throws(ODataError) -> DownloadOutcome in
                    try ResumableDownload(downloader: downloader, model: model, schema: schema, dialect: dialect, db: db)
                        .run(request, isDelta: isDelta, cancellation: cancellation, progress: { step in
                            reached = step
                            // The downloader's rule is the other way round: true goes on.
                            return !progress(step)
                        }, record: { outcome in recordDownload(outcome, startedAt: started, in: db) })
                }
                outcomes.append(outcome)
                refreshStatistics(definingRequestURL: request.url)
                recordDefiningRequestShape(request.url)
            } catch {
                let recorded = recordFailedDownload(of: request.name, error: error, reached: reached, startedAt: started)
                guard error.isDiskFull else { throw recorded }
                // Each defining request is its own transaction: say which one failed and which stay stored.
                let stored = outcomes.isEmpty ? "none"
                    : chosen.prefix(outcomes.count).map { "'\($0.name)'" }.joined(separator: ", ")
                var full = recorded
                full.message = "the download of defining request '\(request.name)' stopped, its previous data kept: "
                    + "\(recorded.message); stored before it in this download: \(stored)"
                throw full
            }
            // After its entities are committed: a failed stream leaves them, and the next
            // download resumes the stream (docs/MEDIA.md).
            if request.retrievesStreams { try downloadStreams(of: request, cancellation: cancellation) }
        }
        // After the data is in: the shapes seen often enough get their indexes (not the
        // download's failure if that fails: the data is committed).
        _ = try? createAutomaticIndexes()
        return outcomes
    }

    /// Brings the planner's statistics up to date for the tables a defining request wrote, after
    /// its transaction (see ``StoreStatistics``). The data is committed by then: a failure here
    /// only leaves older estimates, so it does not fail the download.
    private func refreshStatistics(definingRequestURL url: String) {
        let sets = StoreStatistics.entitySets(of: url, model: model, dialect: dialect)
        try? file.withConnection { db throws(ODataError) in try StoreStatistics.refresh(entitySets: sets, schema: schema, on: db) }
    }

    /// Loads pages of an OData JSON response (V2 or V4, in the store's dialect) as the result of the
    /// defining request `name`, in one transaction; with `fullRefresh`, what the request held
    /// before and the pages lack is removed, as after a full download.
    ///
    /// - Returns: the number of entities the pages held, expanded ones included.
    package func load(pages: [[UInt8]], definingRequest name: String, fullRefresh: Bool = false) throws(ODataError) -> Int {
        var remaining = pages[...]
        return try load(definingRequest: name, fullRefresh: fullRefresh) { () throws(ODataError) -> [UInt8]? in remaining.popFirst() }
    }

    /// ``load(pages:definingRequest:fullRefresh:)`` with the pages asked for one at a time
    /// (`nextPage` returns nil after the last, and may read each from a file): memory holds one
    /// page, whatever the number of pages.
    package func load(definingRequest name: String, fullRefresh: Bool = false,
                     nextPage: () throws(ODataError) -> [UInt8]?) throws(ODataError) -> Int {
        guard let request = try definingRequests().first(where: { $0.name == name }) else {
            throw ODataError(.misuse, "the store has no defining request named '\(name)'")
        }
        let summaries = try file.ingest(definingRequest: request, model: model, schema: schema, dialect: dialect,
                                        fullRefresh: fullRefresh, pageCacheKiB: StoreFile.loadPageCacheKiB, nextPage: nextPage)
        refreshStatistics(definingRequestURL: request.url)
        return summaries.reduce(0) { $0 + $1.entities }
    }

    /// Discards one request of the error archive (by its id), or all of them (nil), with the
    /// requests that build on it: the later requests on its entity, archived or queued. When it
    /// was the entity's earliest request, the entity gets back what the service last sent, as
    /// after ``undoPendingChanges(url:)``: one created offline leaves the store. An entity with no
    /// archived request left is no longer marked in error. Returns how many requests were dropped.
    ///
    /// - Throws: ``ODataError/Code/notFound`` when the archive has no request `id`.
    @discardableResult
    package func deleteArchivedRequests(id: Int64? = nil) throws(ODataError) -> Int {
        let actions = ErrorArchiveActions(schema: schema, dialect: dialect)
        return try file.withConnection { db throws(ODataError) in try actions.discard(id: id, on: db) }
    }

    /// Sends the request queue to the service (see ``Uploader`` for what happens to each answer).
    ///
    /// One upload at a time per store file (see ``UploadLock``): while one runs, from any handle
    /// in this process or another, a second fails at once and sends nothing.
    ///
    /// - Throws: ``ODataError/Code/network`` or ``ODataError/Code/http`` when the service cannot take
    ///   the rest of the queue now (it stays queued), ``ODataError/Code/aborted`` when stopped,
    ///   ``ODataError/Code/busy`` when another upload of the same store file runs.
    ///
    /// - Parameters:
    ///   - batch: send the queue in `$batch` requests (see ``BatchUploader``) instead of one by one.
    ///   - batchSize: at most this many queued requests per `$batch`.
    ///   - groupByTransaction: requests with the same transaction id go in one change set, applied
    ///     or refused together; otherwise each request is its own change set (requests on the
    ///     same entity always share one).
    ///   - compactsQueue: compact the queue first (``compactQueue()``); false sends it as queued.
    ///   - progress: after every answered request; returning true stops the upload after it
    ///     (``ODataError/Code/aborted``).
    package func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false, compactsQueue: Bool = true,
                       conflicts: UploadConflicts = UploadConflicts(),
                       cancellation: HTTPCancellation? = nil,
                       progress: (UploadProgress) -> Bool = { _ in false }) throws(ODataError) -> UploadOutcome {
        guard batchSize >= 1 else { throw ODataError(.misuse, "the batch size must be at least 1, not \(batchSize)") }
        try file.requireWritable()
        // One upload at a time per store file, across handles and processes: a second one would
        // send the same queued requests again.
        return try UploadLock.holding(for: file) { () throws(ODataError) -> UploadOutcome in
            // For the store's statistics and sync log (``recordUpload(_:queuedBefore:archivedBefore:startedAt:)``).
            let started = WriteHolder.monotonicSeconds()
            let queuedBefore = try file.queuedRequests()
            let archivedBefore = Set(try file.errorArchive().map(\.request.id))
            let result: Result<UploadOutcome, ODataError>
            // The uploaders' progress rule is the other way round (true goes on): `{ !progress($0) }`.
            do throws(ODataError) {
                let policies = try ConflictPolicies.load(from: file)
                // Media creates never go in $batch (docs/MEDIA.md): such a queue goes one request at a time.
                let hasMediaCreates = try hasLocalStreams()
                if batch && !hasMediaCreates {
                    var uploader = BatchUploader(transport: try serviceTransport(), serviceRoot: try requireServiceRoot(),
                                                 dialect: dialect, file: file, schema: schema, batchSize: batchSize,
                                                 groupByTransaction: groupByTransaction, compactsQueue: compactsQueue)
                    (uploader.conflictPolicies, uploader.conflictPolicy, uploader.conflictResolver) = (policies, conflicts.policy, conflicts.resolver)
                    result = .success(try uploader.upload(cancellation: cancellation, progress: { !progress($0) }))
                } else {
                    var uploader = Uploader(transport: try serviceTransport(), serviceRoot: try requireServiceRoot(), dialect: dialect,
                                            file: file, schema: schema, compactsQueue: compactsQueue)
                    (uploader.conflictPolicies, uploader.conflictPolicy, uploader.conflictResolver) = (policies, conflicts.policy, conflicts.resolver)
                    result = .success(try uploader.upload(cancellation: cancellation, progress: { !progress($0) }))
                }
            } catch {
                result = .failure(error)
            }
            return try recordUpload(result, queuedBefore: queuedBefore, archivedBefore: archivedBefore, startedAt: started).get()
        }
    }

    /// What ``upload(batch:batchSize:groupByTransaction:cancellation:progress:)`` with the same
    /// arguments would send, in order (see ``UploadPreviewer``): nothing is sent and nothing in the
    /// store changes, so it also works on a read-only store and while another upload runs.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for a batch size below 1 or a store without a service root.
    package func previewUpload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                              compactsQueue: Bool = true) throws(ODataError) -> UploadPreview {
        guard batchSize >= 1 else { throw ODataError(.misuse, "the batch size must be at least 1, not \(batchSize)") }
        return try UploadPreviewer(transport: try serviceTransport(), serviceRoot: try requireServiceRoot(), dialect: dialect,
                                   file: file, schema: schema, batch: batch, batchSize: batchSize,
                                   groupByTransaction: groupByTransaction, compactsQueue: compactsQueue).preview()
    }

    /// Compacts the request queue now, as an upload does first (``QueueCompaction``): fewer
    /// requests, the same result on the service. Waits for no upload: while one runs (in this
    /// process or another) it fails with ``ODataError/Code/busy``, as a second upload would.
    package func compactQueue() throws(ODataError) -> QueueCompaction {
        try file.requireWritable()
        return try UploadLock.holding(for: file) { () throws(ODataError) -> QueueCompaction in
            try QueueCompactor(schema: schema).compact(file)
        }
    }

    /// Checks the store (see ``StoreFile/check(quick:)``); empty when it is sound.
    package func check(quick: Bool = false) throws(ODataError) -> [StoreFinding] { try file.check(quick: quick) }

    /// Closes the store, after writing down the read shapes it counted (``createAutomaticIndexes(threshold:)``).
    package func close() {
        try? saveReadShapes()
        file.close()
    }
}
