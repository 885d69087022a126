/// Turns a request's method and URL into a ``ResolvedRequest``: one parse and one bind, then the
/// resource read off the bound request.
///
/// The model's path classifier (``MetadataModel/classify(path:)``) is asked only when the URL does
/// not bind: a valid path whose query options the offline binder refuses (an unsupported
/// function, `$skiptoken`), a singleton, or a path the model lacks must still be routed, and an
/// online store must still say which entity set an online write changed. It reads only the path,
/// so it classifies what the binder cannot.
struct RequestResolver: Sendable {
    let parser: ODataURLParser
    let binder: ODataBinder
    /// Resolutions of reads and creates kept across requests, or nil to resolve every request afresh.
    let cache: RequestResolutionCache?

    init(model: MetadataModel, dialect: Dialect, limits: ODataURLParser.Limits, cache: RequestResolutionCache? = nil) {
        parser = ODataURLParser(dialect: dialect, limits: limits)
        binder = ODataBinder(model: model, dialect: dialect)
        self.cache = cache
    }

    init(parser: ODataURLParser, binder: ODataBinder) {
        self.parser = parser
        self.binder = binder
        cache = nil
    }

    /// Resolves `method` (any case) on `url`.
    /// - Throws: ``ODataError/Code/misuse`` for a method the store does not take.
    func resolve(method text: String, url: String) throws(ODataError) -> ResolvedRequest {
        resolve(method: try RequestMethod(parsing: text), url: url)
    }

    func resolve(method: RequestMethod, url: String) -> ResolvedRequest {
        if let cache, RequestResolutionCache.keeps(method) {
            return cache.resolution(of: url, method: method, limits: parser.limits) { resolveAfresh(method: method, url: url) }
        }
        return resolveAfresh(method: method, url: url)
    }

    private func resolveAfresh(method: RequestMethod, url: String) -> ResolvedRequest {
        let binding: Result<BoundRequest, ODataError>
        do throws(ODataError) {
            binding = .success(try bind(url))
        } catch {
            binding = .failure(error)
        }
        let resource: RequestResource
        if case .success(let bound) = binding {
            resource = self.resource(of: bound)
        } else if ServiceURL.hasScheme(url) {
            // Asked only here: an absolute URL never binds (a scheme's colon is no OData name).
            resource = .absoluteURL
        } else {
            resource = classified(url)
        }
        return ResolvedRequest(method: method, url: url, resource: resource, binding: binding)
    }

    /// Parses and binds `url` (the one place the store does both), byte offsets of binding errors
    /// turned into character offsets of `url`.
    func bind(_ url: String) throws(ODataError) -> BoundRequest {
        let syntax = try parser.parse(url)
        do {
            return try binder.bind(syntax)
        } catch {
            throw error.convertingByteOffset(in: url)
        }
    }

    private func resource(of bound: BoundRequest) -> RequestResource {
        switch bound.target {
        case .serviceDocument: return .unknown(reason: "the path is empty")
        case .metadata: return .metadata
        case .batch: return .batch
        case .operation(let name): return .operation(operation(named: name))
        case .collection: return .collection(entitySet: bound.path?.entitySet ?? "")
        case .entity: return .entity(entitySet: bound.path?.entitySet ?? "")
        case .count: return .count(entitySet: bound.path?.entitySet ?? "")
        case .property: return .property(entitySet: bound.path?.entitySet ?? "")
        }
    }

    private func operation(named name: String) -> OperationResource {
        let model = binder.model
        if model.functionImport(named: name) != nil { return OperationResource(kind: .functionImport, name: name) }
        if model.actionImport(named: name) != nil { return OperationResource(kind: .actionImport, name: name) }
        let qualified = model.operations(named: name).first?.qualifiedName ?? name
        return OperationResource(kind: .bound, name: qualified)
    }

    /// The resource of a URL the binder refused, from its path alone.
    private func classified(_ url: String) -> RequestResource {
        let path = String(url.prefix { $0 != "?" && $0 != "#" })
        switch binder.model.classify(path: path) {
        case .entitySet(let entityPath), .singleton(let entityPath):
            let set = entityPath.targetEntitySet ?? entityPath.root
            if entityPath.suffix == "$count" { return .count(entitySet: set) }
            if !entityPath.propertyPath.isEmpty || entityPath.suffix == "$value" { return .property(entitySet: set) }
            return entityPath.isCollection ? .collection(entitySet: set) : .entity(entitySet: set)
        case .functionImport(let call): return .operation(OperationResource(kind: .functionImport, name: call.name))
        case .actionImport(let call): return .operation(OperationResource(kind: .actionImport, name: call.name))
        case .boundOperation(let call): return .operation(OperationResource(kind: .bound, name: call.operation))
        case .metadata: return .metadata
        case .batch: return .batch
        case .unknown(let reason): return .unknown(reason: reason)
        }
    }
}
