/// Classification of resource paths against the model.
extension MetadataModel {
    /// Classifies a path given as text (`Products(1)/Supplier`, `GetProductsByRating(rating=3)`),
    /// split by ``ResourcePathSplitter``.
    package func classify(path: String) -> ResourceClassification {
        switch ResourcePathSplitter.split(path) {
        case .success(let segments): classify(segments)
        case .failure(let error): .unknown(reason: error.reason)
        }
    }

    /// Classifies resource path segments: entity set (with key and navigation), singleton,
    /// function import, action import, bound operation, `$metadata`, `$batch`, or unknown.
    package func classify(_ segments: [ResourceSegment]) -> ResourceClassification {
        guard let first = segments.first else { return .unknown(reason: "the path is empty") }
        let rest = segments.dropFirst()
        switch first.name {
        case "$metadata": return rest.isEmpty ? .metadata : .unknown(reason: "nothing may follow $metadata")
        case "$batch": return rest.isEmpty ? .batch : .unknown(reason: "nothing may follow $batch")
        default: break
        }
        guard let container = entityContainer else { return .unknown(reason: "the service has no entity container") }
        if let set = container.entitySet(named: first.name) {
            let key = nonEmptyKey(first)
            let start = EntityPath(root: set.name, rootType: set.entityType, key: key, targetType: set.entityType,
                                   targetEntitySet: set.name, isCollection: key == nil)
            return follow(rest, from: start, isSingleton: false)
        }
        if let singleton = container.singleton(named: first.name) {
            if first.hasParentheses { return .unknown(reason: "the singleton \(first.name) takes no key") }
            let start = EntityPath(root: singleton.name, rootType: singleton.type, targetType: singleton.type,
                                   targetEntitySet: singleton.name, isCollection: false)
            return follow(rest, from: start, isSingleton: true)
        }
        if let functionImport = container.functionImport(named: first.name) {
            guard rest.isEmpty else { return .unknown(reason: "segments after the function import \(first.name) are not supported") }
            return .functionImport(FunctionImportCall(name: functionImport.name, function: functionImport.function,
                                                      httpMethod: functionImport.httpMethod, parameters: first.keyPredicate))
        }
        if let actionImport = container.actionImport(named: first.name) {
            guard rest.isEmpty else { return .unknown(reason: "nothing may follow the action import \(first.name)") }
            return .actionImport(ActionImportCall(name: actionImport.name, action: actionImport.action))
        }
        return .unknown(reason: "\(first.name) is not an entity set, singleton, function import or action import of the service")
    }

    private func nonEmptyKey(_ segment: ResourceSegment) -> String? {
        guard let key = segment.keyPredicate, !key.isEmpty else { return nil }
        return key
    }

    /// Walks the segments after the root: navigation, keys, type casts, properties, suffixes and
    /// a final bound operation.
    private func follow(_ segments: ArraySlice<ResourceSegment>, from start: EntityPath, isSingleton: Bool) -> ResourceClassification {
        var path = start
        var bindingPrefix = ""
        func finished() -> ResourceClassification { isSingleton ? .singleton(path) : .entitySet(path) }
        var remaining = segments[...]
        while let segment = remaining.first {
            remaining = remaining.dropFirst()
            let isLast = remaining.isEmpty
            if path.suffix != nil { return .unknown(reason: "nothing may follow \(path.suffix ?? "")") }
            switch segment.name {
            case "$count":
                guard path.isCollection, path.propertyPath.isEmpty else { return .unknown(reason: "$count needs a collection") }
                path.suffix = segment.name
                continue
            case "$ref", "$value":
                path.suffix = segment.name
                continue
            default: break
            }
            if !path.propertyPath.isEmpty {
                // Inside a structural property only further (complex) properties may follow.
                path.propertyPath.append(segment.name)
                continue
            }
            if QualifiedNames.contains(segment.name, UInt8(ascii: ".")) {
                if let cast = entityType(named: segment.name), let current = entityType(named: path.targetType),
                   entityType(cast, isOrDerivesFrom: current.qualifiedName), !segment.hasParentheses {
                    bindingPrefix += cast.qualifiedName + "/"
                    path.targetType = cast.qualifiedName
                    continue
                }
                guard let call = boundOperation(segment, on: path) else {
                    return .unknown(reason: "\(segment.name) is neither a type derived from \(path.targetType) nor an operation bound to it")
                }
                guard isLast else { return .unknown(reason: "segments after the bound operation \(segment.name) are not supported") }
                return .boundOperation(call)
            }
            guard let type = entityType(named: path.targetType) else { return .unknown(reason: "the type \(path.targetType) is not an entity type") }
            if let navigation = navigationProperty(segment.name, of: type) {
                if path.isCollection { return .unknown(reason: "\(segment.name) follows a collection; a key is needed first") }
                let key = nonEmptyKey(segment)
                if key != nil && navigation.multiplicity != .many {
                    return .unknown(reason: "the navigation property \(segment.name) is single-valued and takes no key")
                }
                let targetSet = navigation.containsTarget ? nil : bindingTarget(bindingPrefix + navigation.name, from: path)
                path.navigation.append(NavigationStep(property: navigation.name, key: key, targetType: navigation.type.name,
                                                      targetEntitySet: targetSet, multiplicity: navigation.multiplicity))
                path.targetType = navigation.type.name
                path.targetEntitySet = targetSet
                path.isCollection = navigation.multiplicity == .many && key == nil
                bindingPrefix = ""
                continue
            }
            if property(segment.name, of: type) != nil {
                if path.isCollection { return .unknown(reason: "the property \(segment.name) follows a collection; a key is needed first") }
                path.propertyPath.append(segment.name)
                continue
            }
            return .unknown(reason: "\(path.targetType) has no navigation property or property \(segment.name)")
        }
        return finished()
    }

    /// The entity set (or singleton) a navigation leads to, from the bindings of the current set.
    private func bindingTarget(_ bindingPath: String, from path: EntityPath) -> String? {
        guard let current = path.targetEntitySet, let container = entityContainer else { return nil }
        let target = container.entitySet(named: current)?.bindingTarget(forPath: bindingPath)
            ?? container.singleton(named: current)?.bindingTarget(forPath: bindingPath)
        guard let target else { return nil }
        // `Namespace.Container/Set` names a set of another container; the simple name is what paths use.
        if let slash = target.utf8.lastIndex(of: UInt8(ascii: "/")) { return String(target[target.utf8.index(after: slash)...]) }
        return target
    }

    /// A bound function or action whose binding parameter accepts what the path addresses.
    private func boundOperation(_ segment: ResourceSegment, on path: EntityPath) -> BoundOperationCall? {
        guard let addressed = entityType(named: path.targetType), path.propertyPath.isEmpty, path.suffix == nil else { return nil }
        let candidates = operations(named: segment.name).filter { operation in
            guard let binding = operation.bindingParameter else { return false }
            return binding.type.isCollection == path.isCollection && entityType(addressed, isOrDerivesFrom: binding.type.name)
        }
        guard let operation = candidates.first else { return nil }
        return BoundOperationCall(kind: operation.kind, operation: operation.qualifiedName, binding: path,
                                  parameters: segment.keyPredicate)
    }
}
