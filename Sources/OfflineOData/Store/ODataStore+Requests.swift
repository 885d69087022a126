/// Requests and questions: each with a completion closure (returning a ``RequestHandle``) and
/// as `async`; ``executeAndWait(_:)`` blocks, for callers without either.
extension ODataStore {
    // MARK: - Requests

    /// Runs `request` where the router sends it (see ``RequestRouter``) and completes once.
    @discardableResult
    public func execute(_ request: ODataRequest,
                        completion: @escaping @Sendable (Result<StoreResponse, ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        // Resolved and routed once: a write's route chooses its lane; a read is resolved on its
        // read thread. A job held while the store opens is planned when the store is open.
        return enqueue(planning: { opened in
            let method: RequestMethod
            do throws(ODataError) {
                method = try RequestMethod(parsing: request.method)
            } catch {
                return (.read, { _, _ throws(ODataError) in throw error })
            }
            if method.isRead {
                return (.read, { opened, handle throws(ODataError) in
                    try opened.execute(request, method: method, cancellation: handle.cancellation)
                })
            }
            let resolved = opened.resolve(request, method: method)
            let route = opened.router.route(resolved)
            return (RequestDispatcher.lane(of: resolved, route: route), { opened, handle throws(ODataError) in
                try opened.execute(request, resolved: resolved, route: route, cancellation: handle.cancellation)
            })
        }, completion: { (result: Result<RequestDispatcher.Outcome, ODataError>) in
            // Announced once committed: a local write's group commits before its completions run.
            if case .success(let outcome) = result, let changed = outcome.changedSet { eventHub.postChanges([changed]) }
            completion(result.map(\.response))
        })
    }

    public func execute(_ request: ODataRequest) async throws(ODataError) -> StoreResponse {
        try await awaitResult { completion in execute(request, completion: completion) }
    }

    /// Runs `request` and waits for its answer.
    ///
    /// - Throws: ``ODataError/Code/busy`` when called from one of this store's own callbacks
    ///   (a completion or an event handler), where waiting could wait for itself; use
    ///   ``execute(_:completion:)`` there.
    public func executeAndWait(_ request: ODataRequest) throws(ODataError) -> StoreResponse {
        // A read on an open store with no write still queued runs on the caller's thread: it has a
        // read connection of its own, and the hand-over to a store thread would cost more than
        // many reads take.
        if let method = try? RequestMethod(parsing: request.method), method.isRead,
           !StoreThreadMarker.isCurrentThreadOwned(by: owner), let opened = openWithoutQueuedWrites() {
            return try opened.execute(request, method: method, cancellation: HTTPCancellation()).response
        }
        return try waitFor { completion in execute(request, completion: completion) }
    }

    /// Waits until the store is open, and says how it is.
    ///
    /// - Throws: the error opening failed with; ``ODataError/Code/busy`` from a callback of this store.
    @discardableResult
    public func waitUntilOpen() throws(ODataError) -> StoreStatus {
        try waitFor { completion in status(completion: completion) }
    }

    /// Reads `url`.
    public func get(_ url: String, headers: [HTTPHeader] = []) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "GET", url: url, headers: headers))
    }

    /// Creates an entity in the collection `url` from its JSON.
    public func create(_ url: String, body: [UInt8], transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "POST", url: url, body: body, transactionID: transactionID))
    }

    /// Changes the entity `url`: the members of `body` only (`PATCH`, the default; V2 services
    /// also take `MERGE`), or the whole entity (`PUT`).
    public func update(_ url: String, body: [UInt8], method: String = "PATCH", headers: [HTTPHeader] = [],
                       transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: method, url: url, body: body, headers: headers, transactionID: transactionID))
    }

    /// Deletes the entity `url`.
    public func delete(_ url: String, headers: [HTTPHeader] = [], transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "DELETE", url: url, headers: headers, transactionID: transactionID))
    }

    /// Reverts the local changes of the entity at `url`: its queued and refused requests are
    /// dropped and it gets back the values the service last sent (or disappears if it was created
    /// offline). A write: it runs in order with the others. See ``LocalUndo``.
    @discardableResult
    public func undoPendingChanges(url: String,
                                   completion: @escaping @Sendable (Result<UndoOutcome, ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        return enqueue(lane: { _ in .write }, { opened, _ throws(ODataError) in
            let outcome = try opened.requireOffline("an undo").undoPendingChanges(url: url)
            if outcome.action != .nothing { eventHub.postChanges([outcome.entitySet]) }
            return outcome
        }, completion: completion)
    }

    @discardableResult
    public func undoPendingChanges(url: String) async throws(ODataError) -> UndoOutcome {
        try await awaitResult { completion in undoPendingChanges(url: url, completion: completion) }
    }

    // MARK: - Questions

    /// Where `method` on `url` would go, and why (see ``RequestRouter``).
    @discardableResult
    public func route(method: String = "GET", url: String,
                      completion: @escaping @Sendable (Result<Route, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            opened.router.route(try opened.resolve(ODataRequest(method: method, url: url)))
        }, completion: completion)
    }

    public func route(method: String = "GET", url: String) async throws(ODataError) -> Route {
        try await awaitResult { completion in route(method: method, url: url, completion: completion) }
    }

    /// The service's data model (its `$metadata`) the store works with; ``MetadataModel/summaryJSONText``
    /// is its summary for applications.
    @discardableResult
    public func metadata(completion: @escaping @Sendable (Result<MetadataModel, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ in opened.model }, completion: completion)
    }

    public func metadata() async throws(ODataError) -> MetadataModel {
        try await awaitResult { completion in metadata(completion: completion) }
    }

    /// What the offline store would do for the read `url` (see ``LocalStore/explain(url:)``).
    @discardableResult
    public func explain(url: String,
                        completion: @escaping @Sendable (Result<StoreExplanation, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("explain").explain(url: url)
        }, completion: completion)
    }

    public func explain(url: String) async throws(ODataError) -> StoreExplanation {
        try await awaitResult { completion in explain(url: url, completion: completion) }
    }

    /// The dialect the store reads and writes (its `$metadata`'s, unless ``Options/dialect`` says
    /// otherwise): what a request body's values are written in.
    public func dialect() async throws(ODataError) -> Dialect {
        try await awaitResult { completion in
            enqueue(lane: { _ in .read }, { opened, _ in opened.dialect }, completion: completion)
        }
    }

    /// The store's state, its defining requests and its queues.
    @discardableResult
    public func status(completion: @escaping @Sendable (Result<StoreStatus, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { [weak self] opened, _ throws(ODataError) in
            let offline = opened.offline
            return StoreStatus(state: self?.state ?? .closed, mode: opened.router.mode, dialect: opened.dialect,
                               serviceRoot: opened.online?.serviceRoot, path: offline?.file.path,
                               definingRequests: try offline?.definingRequests() ?? [],
                               queuedRequests: try offline?.file.queuedRequests().count ?? 0,
                               archivedRequests: try offline?.file.errorArchive().count ?? 0,
                               indexes: try offline?.indexes() ?? [], sync: try offline?.syncStatistics())
        }, completion: completion)
    }

    public func status() async throws(ODataError) -> StoreStatus {
        try await awaitResult { completion in status(completion: completion) }
    }

    /// The requests the service refused, with its answers.
    @discardableResult
    public func errorArchive(completion: @escaping @Sendable (Result<[ArchivedRequest], ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the error archive").file.errorArchive()
        }, completion: completion)
    }

    public func errorArchive() async throws(ODataError) -> [ArchivedRequest] {
        try await awaitResult { completion in errorArchive(completion: completion) }
    }

    /// Checks the store file: SQLite's integrity check (`quick_check` when `quick`) and the
    /// engine's own invariants (``StoreCheck``). An empty list means the store is sound.
    @discardableResult
    public func checkStore(quick: Bool = false,
                           completion: @escaping @Sendable (Result<[StoreFinding], ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("a store check").file.check(quick: quick)
        }, completion: completion)
    }

    public func checkStore(quick: Bool = false) async throws(ODataError) -> [StoreFinding] {
        try await awaitResult { completion in checkStore(quick: quick, completion: completion) }
    }

    /// The requests waiting for an upload, in upload order.
    @discardableResult
    public func requestQueue(completion: @escaping @Sendable (Result<[QueuedRequest], ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the request queue").file.queuedRequests()
        }, completion: completion)
    }

    public func requestQueue() async throws(ODataError) -> [QueuedRequest] {
        try await awaitResult { completion in requestQueue(completion: completion) }
    }

    /// Discards one archived request (by id) or all (nil) with the requests that build on it; see
    /// ``LocalStore/deleteArchivedRequests(id:)``. Returns how many requests were dropped. A
    /// write: it runs in order with the others.
    @discardableResult
    public func deleteArchivedRequests(id: Int64? = nil,
                                       completion: @escaping @Sendable (Result<Int, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .write }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the error archive").deleteArchivedRequests(id: id)
        }, completion: completion)
    }

    @discardableResult
    public func deleteArchivedRequests(id: Int64? = nil) async throws(ODataError) -> Int {
        try await awaitResult { completion in deleteArchivedRequests(id: id, completion: completion) }
    }

    /// Sends an archived request again, its body corrected if `body` is given; see
    /// ``LocalStore/requeueArchivedRequest(id:body:)``. Returns how many requests went back to the
    /// queue. A write: it runs in order with the others.
    @discardableResult
    public func requeueArchivedRequest(id: Int64, body: String? = nil,
                                       completion: @escaping @Sendable (Result<Int, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .write }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the error archive").requeueArchivedRequest(id: id, body: body)
        }, completion: completion)
    }

    @discardableResult
    public func requeueArchivedRequest(id: Int64, body: String? = nil) async throws(ODataError) -> Int {
        try await awaitResult { completion in requeueArchivedRequest(id: id, body: body, completion: completion) }
    }
}

/// What ``ODataStore/status()`` reports.
public struct StoreStatus: Sendable, Equatable {
    public var state: StoreState
    public var mode: WorkingMode
    public var dialect: Dialect
    /// Nil for a store that works offline only.
    public var serviceRoot: String?
    /// The store file; nil for a store that works online only.
    public var path: String?
    public var definingRequests: [DefiningRequest]
    /// Local changes waiting for an upload.
    public var queuedRequests: Int
    /// Requests the service refused, kept in the error archive.
    public var archivedRequests: Int
    /// The indexes the store made beyond its key's, declared or automatic.
    public var indexes: [StoreIndex] = []
    /// The last downloads, the queue's depth and age, and the last upload; nil for a store that
    /// works online only.
    public var sync: SyncStatistics?
}
