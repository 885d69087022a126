/// Requests, and the questions about where they go.
extension StoreOperation where Output == StoreResponse {
    /// Runs `request` where the router sends it (see ``RequestRouter``). Resolved and routed once:
    /// a write's route chooses its lane; a read is resolved on its read thread. A write the
    /// offline store applies announces its entity set as changed once its group committed.
    public static func request(_ request: ODataRequest) -> StoreOperation<StoreResponse> {
        StoreOperation(planning: { dispatcher in
            let method: RequestMethod
            do throws(ODataError) {
                method = try RequestMethod(parsing: request.method)
            } catch {
                return Plan(lane: .read, work: { _ throws(ODataError) in throw error })
            }
            if method.isRead {
                return Plan(lane: .read, work: { context throws(ODataError) in
                    let response = try context.dispatcher.execute(request, method: method, cancellation: context.handle.cancellation).response
                    context.startAutomaticIndexesIfDue()
                    return response
                })
            }
            let resolved = dispatcher.resolve(request, method: method)
            let route = dispatcher.router.route(resolved)
            return Plan(lane: RequestDispatcher.lane(of: resolved, route: route), work: { context throws(ODataError) in
                let outcome = try context.dispatcher.execute(request, resolved: resolved, route: route,
                                                             cancellation: context.handle.cancellation)
                if let changed = outcome.changedSet { context.announceChanges([changed]) }
                return outcome.response
            })
        })
    }
}

extension StoreOperation where Output == Route {
    /// Where `method` on `url` would go, and why (see ``RequestRouter``).
    public static func route(method: String = "GET", url: String) -> StoreOperation<Route> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            let dispatcher = context.dispatcher
            return dispatcher.router.route(try dispatcher.resolve(ODataRequest(method: method, url: url)))
        }
    }
}

extension StoreOperation where Output == MetadataModel {
    /// The service's data model (its `$metadata`) the store works with; ``MetadataModel/summaryJSONText``
    /// is its summary for applications.
    public static var metadata: StoreOperation<MetadataModel> {
        StoreOperation(lane: .read) { context in context.dispatcher.model }
    }
}

extension StoreOperation where Output == Dialect {
    /// The dialect the store reads and writes (its `$metadata`'s, unless
    /// ``ODataStore/Options/dialect`` says otherwise): what a request body's values are written in.
    public static var dialect: StoreOperation<Dialect> {
        StoreOperation(lane: .read) { context in context.dispatcher.dialect }
    }
}

extension StoreOperation where Output == StoreExplanation {
    /// What the offline store would do for the read `url` (see ``LocalStore/explain(url:)``).
    public static func explain(url: String) -> StoreOperation<StoreExplanation> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("explain").explain(url: url)
        }
    }
}

extension StoreOperation where Output == StoreStatus {
    /// The store's state, its defining requests and its queues. Waiting for it waits until the
    /// store is open (see ``ODataStore/waitUntilOpen()``).
    public static var status: StoreOperation<StoreStatus> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            let dispatcher = context.dispatcher
            let offline = dispatcher.offline
            return StoreStatus(state: context.storeState, mode: dispatcher.router.mode, dialect: dispatcher.dialect,
                               serviceRoot: dispatcher.online?.serviceRoot, path: offline?.file.path,
                               definingRequests: try offline?.definingRequests() ?? [],
                               queuedRequests: try offline?.file.queuedRequests().count ?? 0,
                               archivedRequests: try offline?.file.errorArchive().count ?? 0,
                               indexes: try offline?.indexes() ?? [], sync: try offline?.syncStatistics(),
                               wasNotClosedCleanly: offline?.file.recoveryFindings != nil,
                               serviceModelChange: try offline?.pendingModelChange())
        }
    }
}

extension StoreOperation where Output == [StoreFinding] {
    /// Checks the store file: SQLite's integrity check (`quick_check` when `quick`) and the
    /// engine's own invariants (``StoreCheck``). An empty list means the store is sound.
    public static func checkStore(quick: Bool = false) -> StoreOperation<[StoreFinding]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("a store check").file.check(quick: quick)
        }
    }
}
