/// Which store a request goes to, and the store's setting that decides it.
public enum WorkingMode: String, Sendable, CaseIterable {
    /// Every request goes to the service.
    case online
    /// Every request goes to the offline store (which refuses function imports).
    case offline
    /// Each request goes where it can be answered (the default): see ``RequestRouter``.
    case mixed
}

/// Where a request goes, and why: what ``ODataStore/route(method:url:)`` answers.
public struct Route: Sendable, Equatable {
    public enum Destination: String, Sendable { case offline, online }
    public var destination: Destination
    /// In plain words, for people and logs: "TravelagencyCollection is covered by the defining request 'Agencies'".
    public var reason: String
    /// The defining requests whose collections cover the request (for offline routes).
    public var coveringRequests: [String]

    public init(destination: Destination, reason: String, coveringRequests: [String] = []) {
        self.destination = destination
        self.reason = reason
        self.coveringRequests = coveringRequests
    }
}

/// Decides per request whether the offline store or the service answers it (DESIGN.md §4.3).
///
/// In mixed mode:
/// - with only one store configured, that store takes everything;
/// - with no defining requests, everything goes online;
/// - function imports, action imports and bound operations go online (the offline store does not
///   run operations);
/// - a request on an entity set that a defining request brings (its target set, or a set its
///   `$expand` brings) goes offline, reads and writes alike; any other collection goes online;
/// - an absolute URL (a next link from a page read online) goes online.
///
/// "Covered" is decided by collection, as SAP's stores do, not by filter: a read of a covered set
/// outside a defining request's filter goes offline and answers what the store holds (see
/// ``LocalStore/explain(url:)`` for whether a read lies inside the scope).
package struct RequestRouter: Sendable {
    package let mode: WorkingMode
    package let hasOfflineStore: Bool
    package let hasOnlineStore: Bool
    private let model: MetadataModel
    private let dialect: Dialect
    /// For each entity set a defining request brings, the names of those requests.
    private let coveredSets: [String: [String]]

    package init(mode: WorkingMode, model: MetadataModel, dialect: Dialect, definingRequests: [DefiningRequest],
                hasOfflineStore: Bool, hasOnlineStore: Bool) {
        self.mode = mode
        self.model = model
        self.dialect = dialect
        self.hasOfflineStore = hasOfflineStore
        self.hasOnlineStore = hasOnlineStore
        var covered: [String: [String]] = [:]
        for request in definingRequests {
            // A defining request was checked when it was stored; one that no longer resolves covers nothing.
            guard let target = try? DefiningRequestTarget(url: request.url, model: model, dialect: dialect) else { continue }
            var sets: Set<String> = []
            Self.collectSets(target.root, into: &sets)
            for set in sets { covered[set, default: []].append(request.name) }
        }
        coveredSets = covered
    }

    /// The entity sets the defining requests bring, with the requests that bring each.
    package var coveredEntitySets: [String: [String]] { coveredSets }

    /// Where `method` on `url` (relative to the service root) goes; the method does not change
    /// the route. Resolves the URL first: a store routes the ``ResolvedRequest`` it already has.
    package func route(method: String, url: String) -> Route {
        let resolver = RequestResolver(model: model, dialect: dialect, limits: LocalReader.defaultParserLimits)
        return route(resolver.resolve(method: (try? RequestMethod(parsing: method)) ?? .get, url: url))
    }

    /// Where `request` goes, from what it addresses (no parsing here).
    package func route(_ request: ResolvedRequest) -> Route {
        switch mode {
        case .online:
            return Route(destination: .online, reason: "the store works online: every request goes to the service")
        case .offline:
            return Route(destination: .offline, reason: "the store works offline: every request goes to the offline store")
        case .mixed:
            break
        }
        if !hasOnlineStore {
            return Route(destination: .offline, reason: "only the offline store is configured (no service root)")
        }
        if !hasOfflineStore {
            return Route(destination: .online, reason: "only the online store is configured (no store file)")
        }
        if coveredSets.isEmpty {
            return Route(destination: .online, reason: "the store has no defining requests, so everything goes to the service")
        }
        switch request.resource {
        case .absoluteURL:
            return Route(destination: .online, reason: "an absolute URL (a next link) is the service's")
        case .operation(let operation):
            return Route(destination: .online, reason: "\(operation.name) is a\(operation.kind == .actionImport ? "n" : "") \(operation.kind.rawValue): operations run on the service")
        case .metadata, .batch:
            let path = String(request.url.prefix { $0 != "?" && $0 != "#" })
            return Route(destination: .online, reason: "\(path) is answered by the service")
        case .unknown(let reason):
            // The offline store gives the precise error (with its offset) for what the model lacks.
            return Route(destination: .offline, reason: "the model does not know this path (\(reason)); the offline store reports why")
        case .collection(let set), .entity(let set), .count(let set), .property(let set):
            if let requests = coveredSets[set] {
                let names = requests.map { "'\($0)'" }.joined(separator: ", ")
                return Route(destination: .offline,
                             reason: "\(set) is covered by the defining request\(requests.count == 1 ? "" : "s") \(names)",
                             coveringRequests: requests)
            }
            return Route(destination: .online, reason: "no defining request covers \(set)")
        }
    }

    private static func collectSets(_ node: ExpandNode, into sets: inout Set<String>) {
        sets.insert(node.entitySet)
        for navigation in node.navigations.values { collectSets(navigation.node, into: &sets) }
    }
}
