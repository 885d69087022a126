/// What an ``ODataStore`` holds once it is open: the stores its options configured and the
/// router between them.
final class OpenedStore: Sendable {
    /// The offline store, when a store file was configured.
    let offline: OfflineStore?
    /// The service, when a service root was configured.
    let online: OnlineStore?
    let router: RequestRouter
    let model: MetadataModel
    let dialect: Dialect

    init(offline: OfflineStore?, online: OnlineStore?, router: RequestRouter, model: MetadataModel, dialect: Dialect) {
        self.offline = offline
        self.online = online
        self.router = router
        self.model = model
        self.dialect = dialect
    }

    /// The offline store, or the error that says there is none.
    func requireOffline(_ what: String) throws(ODataError) -> OfflineStore {
        guard let offline else { throw ODataError(.misuse, "\(what) needs a store file, and this store has none (it works online only)") }
        return offline
    }

    /// The entity sets the defining request `name` brings (its target and what it expands).
    func entitySets(ofDefiningRequest name: String) -> Set<String> {
        Set(router.coveredEntitySets.compactMap { set, requests in requests.contains(name) ? set : nil })
    }

    /// The lane a request runs on: reads side by side; writes the offline store applies grouped
    /// for one commit; the others (writes to the service) one at a time. A write's route is
    /// handed to `routed`, so that running it does not route it again.
    func lane(of request: ODataRequest, routed: Protected<Route?>) -> StoreJob.Lane {
        if request.isRead { return .read }
        let route = router.route(method: request.method, url: request.url)
        routed.withLock { $0 = route }
        return route.destination == .offline ? .localWrite : .write
    }

    /// What running one request gave.
    struct Outcome: Sendable {
        var response: StoreResponse
        var route: Route
        /// The entity set an offline or online write changed.
        var changedSet: String?
    }

    /// Runs one request where the router sends it (or where `route`, already decided, says).
    func execute(_ request: ODataRequest, route decided: Route? = nil, cancellation: HTTPCancellation) throws(ODataError) -> Outcome {
        let route = decided ?? router.route(method: request.method, url: request.url)
        switch route.destination {
        case .offline:
            let store = try requireOffline("the offline store")
            if request.isRead {
                return Outcome(response: try store.execute(method: "GET", url: request.url), route: route)
            }
            let written = try store.write(method: request.method, url: request.url, body: request.body,
                                          transactionID: request.transactionID)
            return Outcome(response: StoreResponse(status: written.status, contentType: "application/json", body: written.body),
                           route: route, changedSet: written.entitySet)
        case .online:
            guard let online else { throw ODataError(.misuse, "this store has no service root, so it cannot send requests online") }
            let response = try online.execute(method: request.method, url: request.url, body: request.body, headers: request.headers,
                                              followsNextLinks: request.followsNextLinks, cancellation: cancellation)
            var changed: String?
            if !request.isRead, case .entitySet(let path) = model.classify(path: String(request.url.prefix { $0 != "?" })) {
                changed = path.targetEntitySet
            }
            return Outcome(response: response, route: route, changedSet: changed)
        }
    }
}
