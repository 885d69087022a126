/// Gives a parsed request its meaning against the `$metadata` model (odata.net's "binding" stage):
/// resolves the resource path to entity sets, keys and navigations, and the query options to typed
/// expression trees. Every fault is an `ODataError(.semantic, ..., offset:)` naming the offending
/// token at its position in the original URL (offsets count UTF-8 bytes, which equal characters
/// for the ASCII text that RFC 3986 URLs are; ``ODataError/convertingByteOffset(in:)`` turns them
/// into character offsets, as `LocalReader` does); what is valid OData but beyond an offline store
/// (`$apply`, `$skiptoken`, singletons) is `.unsupported`.
@_spi(Tool) public struct ODataBinder: Sendable {
    package let model: MetadataModel
    package let dialect: Dialect
    /// Deepest nesting of `$expand` levels accepted.
    package var maxExpandDepth = 8

    @_spi(Tool) public init(model: MetadataModel, dialect: Dialect) {
        self.model = model
        self.dialect = dialect
    }

    @_spi(Tool) public func bind(_ syntax: ODataRequestSyntax) throws(ODataError) -> BoundRequest {
        ParseBindCounter.noteBind(against: model)
        let segments = syntax.path.segments
        guard let first = segments.first else {
            return BoundRequest(target: .serviceDocument, path: nil, options: BoundQueryOptions())
        }
        switch first.kind {
        case .metadata: return BoundRequest(target: .metadata, path: nil, options: BoundQueryOptions())
        case .batch: return BoundRequest(target: .batch, path: nil, options: BoundQueryOptions())
        case .name(let name):
            // Only asks whether the set exists (the resolver fetches it): no copy of the set.
            if model.entityContainer?.entitySets.contains(where: { $0.name == name }) != true, let operation = operationName(name) {
                return BoundRequest(target: .operation(name: operation), path: nil, options: BoundQueryOptions())
            }
        default:
            break
        }
        var resolver = PathResolver(binder: self)
        let (target, path, entityType) = try resolver.resolve(segments)
        if case .operation = target { return BoundRequest(target: target, path: nil, options: BoundQueryOptions()) }
        let isCollection: Bool = switch target {
        case .collection, .count: true
        default: false
        }
        let options = try bindOptions(syntax.options, entitySet: path.entitySet, entityType: EntityTypeReference(entityType),
                                      isCollection: isCollection, depth: 0, aliases: syntax.options.parameterAliases)
        return BoundRequest(target: target, path: path, options: options)
    }

    /// The name of the function or action import `name` denotes, if it is one.
    func operationName(_ name: String) -> String? {
        if model.functionImport(named: name) != nil || model.actionImport(named: name) != nil { return name }
        return nil
    }

    func semantic(_ message: String, at range: SourceRange) -> ODataError {
        ODataError(.semantic, message, offset: range.offset)
    }

    func unsupported(_ message: String, at range: SourceRange?) -> ODataError {
        ODataError(.unsupported, message, offset: range?.offset)
    }

    /// The entity set that holds the targets of `navigation` reached from `sourceSet`: the
    /// NavigationPropertyBinding (V4, or V2 association sets), else the only set of the target type.
    func targetSet(of navigation: NavigationProperty, from sourceSet: String, sourceType: EntityType,
                   at range: SourceRange) throws(ODataError) -> String {
        if let set = model.entitySet(named: sourceSet) {
            if let target = set.bindingTarget(forPath: navigation.name)
                ?? set.bindingTarget(forPath: sourceType.qualifiedName + "/" + navigation.name) {
                let name = target.split(separator: "/").last.map(String.init) ?? target
                if model.entitySet(named: name) != nil { return name }
            }
        }
        let candidates = model.entityContainer?.entitySets.filter {
            guard let type = model.entityType(named: $0.entityType), let target = model.entityType(named: navigation.targetTypeName) else { return false }
            return model.entityType(target, isOrDerivesFrom: type.qualifiedName)
        } ?? []
        if candidates.count == 1, let only = candidates.first { return only.name }
        throw semantic("navigation property '\(navigation.name)' has no entity set binding, so its targets cannot be found", at: range)
    }

    /// `navigation` of `sourceType` in `sourceSet`, resolved to both ends and the join.
    func boundNavigation(_ navigation: NavigationProperty, sourceSet: String, sourceType: EntityType,
                         at range: SourceRange) throws(ODataError) -> BoundNavigation {
        let targetSet = try targetSet(of: navigation, from: sourceSet, sourceType: sourceType, at: range)
        return BoundNavigation(name: navigation.name, sourceSet: sourceSet, sourceType: sourceType.qualifiedName,
                               targetSet: targetSet, targetType: model.qualifiedName(navigation.targetTypeName),
                               isCollection: navigation.type.isCollection || navigation.multiplicity == .many,
                               join: model.navigationJoin(navigation, sourceType: sourceType))
    }

    /// The concrete type names a cast to `type` admits: the type and every type derived from it.
    func typesAdmitted(by type: EntityType) -> [String] {
        var names: [String] = []
        for schema in model.schemas {
            for candidate in schema.entityTypes where model.entityType(candidate, isOrDerivesFrom: type.qualifiedName) {
                names.append(candidate.qualifiedName)
            }
        }
        return names
    }
}
