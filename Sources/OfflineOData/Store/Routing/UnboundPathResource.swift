/// What a parsed resource path addresses when the binder refused it: read off the parser's syntax
/// tree with the model's names, so that such a request is still routed by what it names.
///
/// The binder refuses what the offline store does not answer, and a valid request may still be
/// one the service answers: a singleton (and a navigation or operation from it), a navigation
/// without an entity set binding (containment), `$value` of a media entity, V2's `$ref`, a key the
/// offline store's types refuse. Keys are not checked here (the store that answers reports a bad
/// one); the entity set, the kind of resource and the operation are what routing needs.
struct UnboundPathResource {
    let model: MetadataModel

    /// Where a walk along the path stands: the entities addressed so far.
    private struct Position {
        /// The entity set or singleton the path starts at.
        var root: String
        var targetType: String
        /// The set the addressed entities live in; nil for containment (the root then names it).
        var targetEntitySet: String?
        var isCollection: Bool
        var propertyPath: [String] = []
        var suffix: PathSegmentSyntax.Kind?

        var entitySet: String { targetEntitySet ?? root }
    }

    func resource(of path: ResourcePathSyntax) -> RequestResource {
        guard let first = path.segments.first else { return .unknown(reason: "the path is empty") }
        let rest = path.segments.dropFirst()
        let name: String
        switch first.kind {
        case .metadata: return rest.isEmpty ? .metadata : .unknown(reason: "nothing may follow $metadata")
        case .batch: return rest.isEmpty ? .batch : .unknown(reason: "nothing may follow $batch")
        case .name(let given): name = given
        default: return .unknown(reason: "the path does not start with a name of the service")
        }
        guard let container = model.entityContainer else { return .unknown(reason: "the service has no entity container") }
        if let set = container.entitySet(named: name) {
            let keyed = Self.hasKey(first)
            return follow(rest, from: Position(root: set.name, targetType: set.entityType, targetEntitySet: set.name, isCollection: !keyed))
        }
        if let singleton = container.singleton(named: name) {
            if !first.argumentLists.isEmpty { return .unknown(reason: "the singleton \(name) takes no key") }
            return follow(rest, from: Position(root: singleton.name, targetType: singleton.type, targetEntitySet: singleton.name,
                                               isCollection: false))
        }
        if container.functionImport(named: name) != nil {
            guard rest.isEmpty else { return .unknown(reason: "segments after the function import \(name) are not supported") }
            return .operation(OperationResource(kind: .functionImport, name: name))
        }
        if container.actionImport(named: name) != nil {
            guard rest.isEmpty else { return .unknown(reason: "nothing may follow the action import \(name)") }
            return .operation(OperationResource(kind: .actionImport, name: name))
        }
        return .unknown(reason: "\(name) is not an entity set, singleton, function import or action import of the service")
    }

    /// A key predicate with something in it (`Set()` addresses the set).
    private static func hasKey(_ segment: PathSegmentSyntax) -> Bool {
        segment.argumentLists.first.map { !$0.arguments.isEmpty } ?? false
    }

    /// Walks the segments after the root: navigation, keys, type casts, properties, `$count`,
    /// `$value`, `$ref` and a final bound operation.
    private func follow(_ segments: ArraySlice<PathSegmentSyntax>, from start: Position) -> RequestResource {
        var path = start
        var bindingPrefix = ""
        var remaining = segments
        while let segment = remaining.first {
            remaining = remaining.dropFirst()
            if path.suffix != nil { return .unknown(reason: "nothing may follow $count, $value or $ref") }
            let name: String
            switch segment.kind {
            case .count:
                guard path.isCollection, path.propertyPath.isEmpty else { return .unknown(reason: "$count needs a collection") }
                path.suffix = .count
                continue
            case .ref, .value:
                path.suffix = segment.kind
                continue
            case .name(let given):
                name = given
            default:
                return .unknown(reason: "this path segment is not one the service's model names")
            }
            if !path.propertyPath.isEmpty {
                // Inside a structural property only further (complex) properties may follow.
                path.propertyPath.append(name)
                continue
            }
            guard let type = model.entityType(named: path.targetType) else {
                return .unknown(reason: "the type \(path.targetType) is not an entity type")
            }
            if QualifiedNames.contains(name, UInt8(ascii: ".")) {
                if let cast = model.entityType(named: name), model.entityType(cast, isOrDerivesFrom: type.qualifiedName),
                   segment.argumentLists.isEmpty {
                    bindingPrefix += cast.qualifiedName + "/"
                    path.targetType = cast.qualifiedName
                    continue
                }
                guard let operation = boundOperation(name, on: path, type: type) else {
                    return .unknown(reason: "\(name) is neither a type derived from \(path.targetType) nor an operation bound to it")
                }
                guard remaining.isEmpty else { return .unknown(reason: "segments after the bound operation \(name) are not supported") }
                return .operation(OperationResource(kind: .bound, name: operation.qualifiedName))
            }
            if let navigation = model.navigationProperty(name, of: type) {
                if path.isCollection { return .unknown(reason: "\(name) follows a collection; a key is needed first") }
                let keyed = Self.hasKey(segment)
                if keyed && navigation.multiplicity != .many {
                    return .unknown(reason: "the navigation property \(name) is single-valued and takes no key")
                }
                path.targetEntitySet = navigation.containsTarget ? nil : bindingTarget(bindingPrefix + navigation.name, from: path)
                path.targetType = navigation.type.name
                path.isCollection = navigation.multiplicity == .many && !keyed
                bindingPrefix = ""
                continue
            }
            if model.property(name, of: type) != nil {
                if path.isCollection { return .unknown(reason: "the property \(name) follows a collection; a key is needed first") }
                path.propertyPath.append(name)
                continue
            }
            return .unknown(reason: "\(path.targetType) has no navigation property or property \(name)")
        }
        if path.suffix == .count { return .count(entitySet: path.entitySet) }
        if !path.propertyPath.isEmpty || path.suffix == .value { return .property(entitySet: path.entitySet) }
        return path.isCollection ? .collection(entitySet: path.entitySet) : .entity(entitySet: path.entitySet)
    }

    /// The entity set (or singleton) a navigation leads to, from the bindings of the current set.
    private func bindingTarget(_ bindingPath: String, from path: Position) -> String? {
        guard let current = path.targetEntitySet, let container = model.entityContainer else { return nil }
        let target = container.entitySet(named: current)?.bindingTarget(forPath: bindingPath)
            ?? container.singleton(named: current)?.bindingTarget(forPath: bindingPath)
        guard let target else { return nil }
        // `Namespace.Container/Set` names a set of another container; the simple name is what paths use.
        if let slash = target.utf8.lastIndex(of: UInt8(ascii: "/")) { return String(target[target.utf8.index(after: slash)...]) }
        return target
    }

    /// A bound function or action whose binding parameter accepts what the path addresses.
    private func boundOperation(_ name: String, on path: Position, type: EntityType) -> Operation? {
        guard path.propertyPath.isEmpty, path.suffix == nil else { return nil }
        return model.operations(named: name).first { operation in
            guard let binding = operation.bindingParameter else { return false }
            return binding.type.isCollection == path.isCollection && model.entityType(type, isOrDerivesFrom: binding.type.name)
        }
    }
}
