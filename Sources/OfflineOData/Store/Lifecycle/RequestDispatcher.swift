/// What an ``ODataStore`` holds once it is open: the stores its options configured and the
/// router between them.
final class RequestDispatcher: Sendable {
    /// The offline store, when a store file was configured.
    let offline: LocalStore?
    /// The service, when a service root was configured.
    let online: ServiceClient?
    let router: RequestRouter
    let model: MetadataModel
    let dialect: Dialect

    init(offline: LocalStore?, online: ServiceClient?, router: RequestRouter, model: MetadataModel, dialect: Dialect) {
        self.offline = offline
        self.online = online
        self.router = router
        self.model = model
        self.dialect = dialect
    }

    /// The offline store, or the error that says there is none.
    func requireOffline(_ what: String) throws(ODataError) -> LocalStore {
        guard let offline else { throw ODataError(.misuse, "\(what) needs a store file, and this store has none (it works online only)") }
        return offline
    }

    /// Refuses `what` (a download, an upload) when there is no service to send it to.
    func requireOnline(_ what: String) throws(ODataError) {
        guard online != nil else {
            throw ODataError(.misuse, "\(what) needs the service, and the store has no service root: give one when opening or creating it")
        }
    }

    /// The offline store for `what` (a download, an upload or its preview), which needs the
    /// store file and the service both; or the error that says which is missing.
    func requireFileAndService(_ what: String) throws(ODataError) -> LocalStore {
        let offline = try requireOffline(what)
        try requireOnline(what)
        return offline
    }

    /// The entity sets the defining request `name` brings (its target and what it expands).
    func entitySets(ofDefiningRequest name: String) -> Set<String> {
        Set(router.coveredEntitySets.compactMap { set, requests in requests.contains(name) ? set : nil })
    }

    /// Resolves `request` once (see ``RequestResolver``), with the offline store's URL limits and
    /// its kept resolutions of reads and creates when there is one.
    /// - Throws: ``ODataError/Code/misuse`` for a method the store does not take.
    func resolve(_ request: ODataRequest) throws(ODataError) -> ResolvedRequest {
        resolve(request, method: try RequestMethod(parsing: request.method))
    }

    /// Resolves `request`, its method already decided.
    func resolve(_ request: ODataRequest, method: RequestMethod) -> ResolvedRequest {
        let resolver = RequestResolver(model: model, dialect: dialect,
                                       limits: offline?.currentRequestLimits ?? LocalReader.defaultParserLimits,
                                       cache: offline?.resolutions)
        return resolver.resolve(method: method, url: request.url)
    }

    /// The lane a routed request runs on: reads side by side; writes the offline store applies
    /// grouped for one commit; the others (writes to the service) one at a time.
    static func lane(of request: ResolvedRequest, route: Route) -> StoreLane {
        if request.isRead { return .read }
        return route.destination == .offline ? .localWrite : .write
    }

    /// What running one request gave.
    struct Outcome: Sendable {
        var response: StoreResponse
        var route: Route
        /// The entity set an offline or online write changed.
        var changedSet: String?
    }

    /// Resolves, routes and runs one request whose method is decided.
    func execute(_ request: ODataRequest, method: RequestMethod, cancellation: HTTPCancellation) throws(ODataError) -> Outcome {
        let resolved = resolve(request, method: method)
        return try execute(request, resolved: resolved, route: router.route(resolved), cancellation: cancellation)
    }

    /// Runs one request, resolved and routed already: nothing here parses or routes it again.
    func execute(_ request: ODataRequest, resolved: ResolvedRequest, route: Route,
                 cancellation: HTTPCancellation) throws(ODataError) -> Outcome {
        switch route.destination {
        case .offline:
            let store = try requireOffline("the offline store")
            if resolved.isRead {
                return Outcome(response: try store.read(resolved), route: route)
            }
            let written = try store.write(resolved, body: request.body, transactionID: request.transactionID,
                                           mergeable: request.mergeable)
            return Outcome(response: written.response(shape: AnswerShape(answering: resolved, model: model)),
                           route: route, changedSet: written.entitySet)
        case .online:
            guard let online else { throw ODataError(.misuse, "this store has no service root, so it cannot send requests online") }
            var response = try online.execute(resolved, body: request.body,
                                              headers: request.headers, followsNextLinks: request.followsNextLinks,
                                              cancellation: cancellation)
            // What the answer holds, from the request as resolved: the service's body is not read for it.
            response.shape = AnswerShape(answering: resolved, model: model)
            return Outcome(response: response, route: route, changedSet: resolved.isRead ? nil : resolved.resource.entitySet)
        }
    }
}
