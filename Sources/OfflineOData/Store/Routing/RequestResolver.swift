/// Turns a request's method and URL into a ``ResolvedRequest``: one parse and one bind, then the
/// resource read off the bound request.
///
/// A URL that does not bind must still be routed: a valid path whose query options the offline
/// binder refuses (an unsupported function, `$skiptoken`), and an online store must still say
/// which entity set an online write changed. The resource then comes from how far binding got:
/// the parsed path is bound alone, without its options (the path parsed alone when the whole URL
/// did not parse). A path that does not bind either is ``RequestResource/unknown(reason:)``, with
/// the binder's or the parser's reason. One grammar, the parser's, decides every case.
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
        let syntax: Result<ODataRequestSyntax, ODataError>
        do throws(ODataError) {
            syntax = .success(try parser.parse(url))
        } catch {
            syntax = .failure(error)
        }
        let binding: Result<BoundRequest, ODataError>
        switch syntax {
        case .success(let parsed):
            do throws(ODataError) {
                binding = .success(try bind(parsed, of: url))
            } catch {
                binding = .failure(error)
            }
        case .failure(let error):
            binding = .failure(error)
        }
        // The path as parsed: from the whole URL, or, when that did not parse, alone (the query
        // may be what failed); asked only then, so a request that parses costs one parse.
        let path: Result<ResourcePathSyntax, ODataError>
        switch syntax {
        case .success(let parsed): path = .success(parsed.path)
        case .failure: path = Result { () throws(ODataError) in try parser.parseResourcePath(Self.pathText(of: url)) }
        }
        let resource: RequestResource
        if case .success(let bound) = binding {
            resource = self.resource(of: bound)
        } else if ServiceURL.hasScheme(url) {
            // Asked only here: an absolute URL never binds (a scheme's colon is no OData name).
            resource = .absoluteURL
        } else {
            resource = resourceOfPath(path)
        }
        let top = (try? syntax.get().options.top)?.flatMap { Int(exactly: $0) }
        return ResolvedRequest(method: method, url: url, resource: resource, binding: binding, top: top,
                               suffix: (try? path.get()).flatMap(Self.suffix))
    }

    /// Parses and binds `url` (the one place the store does both), byte offsets of binding errors
    /// turned into character offsets of `url`.
    func bind(_ url: String) throws(ODataError) -> BoundRequest {
        try bind(parser.parse(url), of: url)
    }

    private func bind(_ syntax: ODataRequestSyntax, of url: String) throws(ODataError) -> BoundRequest {
        do {
            return try binder.bind(syntax)
        } catch {
            throw error.convertingByteOffset(in: url)
        }
    }

    /// The resource of a URL the binder refused, from its parsed path (the whole URL's, or the
    /// path parsed alone when the query is what failed); see ``UnboundPathResource``.
    private func resourceOfPath(_ path: Result<ResourcePathSyntax, ODataError>) -> RequestResource {
        switch path {
        case .success(let parsed): UnboundPathResource(model: binder.model).resource(of: parsed)
        case .failure(let error): .unknown(reason: error.message)
        }
    }

    /// `$count` or `$value` at the end of a parsed path.
    private static func suffix(of path: ResourcePathSyntax) -> ResolvedRequest.PathSuffix? {
        switch path.segments.last?.kind {
        case .count: .count
        case .value: .value
        default: nil
        }
    }

    /// The text before the query and the fragment.
    private static func pathText(of url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
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
        case .property, .mediaValue, .streamProperty: return .property(entitySet: bound.path?.entitySet ?? "")
        }
    }

    private func operation(named name: String) -> OperationResource {
        let model = binder.model
        if model.functionImport(named: name) != nil { return OperationResource(kind: .functionImport, name: name) }
        if model.actionImport(named: name) != nil { return OperationResource(kind: .actionImport, name: name) }
        let qualified = model.operations(named: name).first?.qualifiedName ?? name
        return OperationResource(kind: .bound, name: qualified)
    }
}
