/// A request understood once: its method, its URL parsed and bound against the model, and what it
/// addresses. The router, the lane, the offline store's reader and writer and the online store's
/// change announcement all work from this one value (issue 22: one request, one parse).
package struct ResolvedRequest: Sendable {
    /// The parts, in one shared object: a resolution is kept (``RequestResolutionCache``) and
    /// handed along the read path by value, and copying the bound request field by field (its
    /// strings, arrays and options) cost more than a small read's statement.
    private let parts: Parts

    private final class Parts: Sendable {
        let method: RequestMethod
        let url: String
        let resource: RequestResource
        let binding: Result<BoundRequest, ODataError>
        let top: Int?
        let suffix: PathSuffix?
        /// Whether the bound request is answered by one statement (``LocalReader/isOneStatement(_:)``).
        let readsInOneStatement: Bool

        init(method: RequestMethod, url: String, resource: RequestResource, binding: Result<BoundRequest, ODataError>,
             top: Int?, suffix: PathSuffix?) {
            self.method = method
            self.url = url
            self.resource = resource
            self.binding = binding
            self.top = top
            self.suffix = suffix
            if case .success(let bound) = binding { readsInOneStatement = LocalReader.isOneStatement(bound) } else { readsInOneStatement = false }
        }
    }

    package var method: RequestMethod { parts.method }
    /// Relative to the service root, as the caller gave it (absolute for a next link).
    package var url: String { parts.url }
    /// What the URL addresses, for routing and for the entity set a write changes.
    package var resource: RequestResource { parts.resource }
    /// The binder's answer: the bound request, or the error (with its offset) the offline store
    /// reports should the request go there. A request the service answers needs no binding.
    var binding: Result<BoundRequest, ODataError> { parts.binding }
    /// The query's `$top` as parsed (nil without one, or when the URL did not parse): an online
    /// read stops following next links there.
    package var top: Int? { parts.top }
    /// `$count` or `$value` ending the path as parsed, whether or not it bound: the online
    /// client asks for plain text or the raw value instead of JSON.
    package var suffix: PathSuffix? { parts.suffix }
    /// Whether the request bound and is answered by one statement (no `$count` beside the
    /// entities, no `$expand`), so a read needs no transaction of its own to see one state.
    var readsInOneStatement: Bool { parts.readsInOneStatement }

    /// The path's last segments that change what the answer is.
    package enum PathSuffix: Sendable, Equatable {
        /// `/$count`: a number as plain text.
        case count
        /// `/$value`: a property's (or a media entity's) raw value.
        case value
    }

    init(method: RequestMethod, url: String, resource: RequestResource, binding: Result<BoundRequest, ODataError>,
         top: Int? = nil, suffix: PathSuffix? = nil) {
        parts = Parts(method: method, url: url, resource: resource, binding: binding, top: top, suffix: suffix)
    }

    /// Whether the request only reads.
    package var isRead: Bool { method.isRead }

    /// The bound request, for the offline store: the binder's error when binding failed, and the
    /// one refusal of operations (the offline store never runs a function or an action).
    func boundForOfflineStore() throws(ODataError) -> BoundRequest {
        try Self.answerableOffline(binding.get())
    }

    /// `bound`, unless it calls an operation: the one place the offline store refuses them.
    static func answerableOffline(_ bound: BoundRequest) throws(ODataError) -> BoundRequest {
        if case .operation(let name) = bound.target {
            throw ODataError(.unsupported, "the offline store does not run operations: '\(name)' is a function or action")
        }
        return bound
    }
}

/// What a request's URL addresses, from the bound request (or, for a URL the binder refuses, from
/// its path bound alone; see ``RequestResolver``).
package enum RequestResource: Sendable, Equatable {
    /// A collection of entities of `entitySet` (an entity set, a to-many navigation).
    case collection(entitySet: String)
    /// One entity (by key, through a to-one navigation, or a singleton).
    case entity(entitySet: String)
    /// `/$count` of a collection.
    case count(entitySet: String)
    /// A property of one entity, or its raw `$value`.
    case property(entitySet: String)
    /// A function import, action import or bound operation: the service runs these.
    case operation(OperationResource)
    case metadata
    case batch
    /// An absolute URL: only the service hands these out (the next link of a page read online).
    case absoluteURL
    /// Nothing the model knows (the empty path included); the reason says why.
    case unknown(reason: String)

    /// The entity set whose entities the request reads or changes, when it addresses entities.
    package var entitySet: String? {
        switch self {
        case .collection(let set), .entity(let set), .count(let set), .property(let set): set
        default: nil
        }
    }
}

/// An operation a request calls, with its kind for the route's reason.
package struct OperationResource: Sendable, Equatable {
    package enum Kind: String, Sendable { case functionImport = "function import", actionImport = "action import", bound = "bound operation" }
    package var kind: Kind
    /// The import's name, or the bound operation's qualified name.
    package var name: String
}
