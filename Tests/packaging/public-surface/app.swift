// An app's use of the engine through a plain `import OfflineOData`: every part of the store API an
// app needs (Tests/packaging/test_public_surface.py type-checks it against the built module).
import OfflineOData

func useTheStore() async throws(ODataError) {
    var options = ODataStore.Options(path: "app.store", serviceRoot: "http://127.0.0.1:40123/")
    options.definingRequests = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'")]
    options.indexes = [try IndexDeclaration(parsing: "TravelagencyCollection:city"),
                       IndexDeclaration(entitySet: "TravelagencyCollection", properties: ["name"])]
    options.mode = WorkingMode.mixed
    options.dialect = Dialect.v4
    options.requestLimits = URLLimits(maxDepth: 50, maxLength: 4096, maxOperators: 100)
    options.http.authentication = HTTPAuthentication.bearer(token: "t")
    options.http.headers = [HTTPHeader("X-App", "1")]
    let store = ODataStore.open(options)
    defer { store.close() }

    let subscription: StoreSubscription = store.subscribe { (event: StoreEvent) in
        if case .requestFailed(let archived) = event { _ = archived.kind == ArchiveKind.conflict }
        if case .downloadProgress(let progress) = event { _ = progress.entities }
        if case .uncleanShutdownChecked(let findings) = event { _ = findings.map(\.message) }
    }
    defer { subscription.cancel() }
    let watcher = Task { for await event in store.events { if event == .firstDownloadComplete { break } } }
    defer { watcher.cancel() }

    let response: StoreResponse = try await store.execute(ODataRequest(method: "GET", url: "TravelagencyCollection"))
    let answer: JSONValue = try JSONValue.parse(response.body)
    _ = answer["value"]?[0]?["name"]?.stringValue
    _ = (response.shape.kind == AnswerShape.Kind.collection, response.shape.entitySet, response.shape.propertyType)
    _ = try await store.get("TravelagencyCollection('1')").header("ETag")
    _ = try await store.create("TravelagencyCollection", body: Array(#"{"agencynum":"9"}"#.utf8))
    _ = try await store.update("TravelagencyCollection('9')", body: Array("{}".utf8))
    _ = try await store.delete("TravelagencyCollection('9')")
    if let next = ODataRequest.page(after: response) { _ = try store.executeAndWait(next) }
    let handle: RequestHandle = store.start(.status) { (result: Result<StoreStatus, ODataError>) in _ = result }
    handle.cancel()

    let status: StoreStatus = try await store.perform(.status)
    _ = (status.state == StoreState.open, status.queuedRequests, status.indexes.map { $0.origin == StoreIndex.Origin.automatic })
    let explanation: StoreExplanation = try await store.perform(.explain(url: "TravelagencyCollection?$filter=city eq 'Boston'"))
    _ = (explanation.sql, explanation.plan, explanation.isInsideScope)
    let route: Route = try await store.perform(.route(url: "GetAgencyDetails(agencynum='1')"))
    _ = route.destination == Route.Destination.online
    let findings: [StoreFinding] = try await store.perform(.checkStore(quick: true))
    _ = findings.count
    let queue: [QueuedRequest] = try await store.perform(.requestQueue)
    _ = queue.map { $0.state == QueueState.inDoubt }
    let archive: [ArchivedRequest] = try await store.perform(.errorArchive)
    if let first = archive.first {
        _ = try await store.perform(.requeueArchivedRequest(id: first.request.id, body: nil))
        _ = try await store.perform(.deleteArchivedRequests(id: first.request.id))
    }
    let downloads: [DownloadOutcome] = try await store.perform(.download(DownloadOptions(full: true) { step in step.pages > 100 }))
    _ = downloads.map(\.entities)
    let upload: UploadOutcome = try await store.perform(.upload(UploadOptions(batch: true)))
    _ = (upload.sent, upload.archived, upload.inDoubt)
    let undone: UndoOutcome = try await store.perform(.undoPendingChanges(url: "TravelagencyCollection('9')"))
    _ = undone.action
    let redownloaded: RedownloadOutcome = try await store.perform(.redownloadEntity(url: "TravelagencyCollection('1')"))
    _ = redownloaded.action

    let model: MetadataModel = try store.performAndWait(.metadata)
    if let type: EntityType = model.entityType(ofEntitySet: "TravelagencyCollection") {
        let properties: [Property] = model.properties(of: type)
        _ = properties.map { ($0.name, $0.type.name) }
        _ = model.keyProperties(of: type).map(\.name)
    }
    _ = (model.version, model.namespaces, model.counts.entitySets)
    _ = OfflineODataVersion.string
    let error = ODataError(.busy, "example")
    _ = error.code == ODataError.Code.busy
}
