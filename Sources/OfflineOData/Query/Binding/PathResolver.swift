/// Resolves the segments of a resource path: entity set, key, navigations, casts, `$count`,
/// property and `$value`. Operations anywhere in the path make the whole request an operation.
struct PathResolver {
    let binder: ODataBinder
    var model: MetadataModel { binder.model }

    init(binder: ODataBinder) { self.binder = binder }

    /// The target, the bound path, and the entity type the path ends at (so the caller need not
    /// look it up again by name).
    mutating func resolve(_ segments: [PathSegmentSyntax]) throws(ODataError) -> (BoundRequest.Target, BoundPath, EntityType) {
        guard let first = segments.first else { throw ODataError(.internalError, "empty resource path") }
        var (path, type) = try root(first)
        for index in segments.indices.dropFirst() {
            if let target = try follow(segments, at: index, path: &path, type: &type) {
                return (target, path, type)
            }
        }
        return (path.isCollection ? .collection : .entity, path, type)
    }

    /// The path of the first segment: an entity set, with its key if it has one.
    private func root(_ first: PathSegmentSyntax) throws(ODataError) -> (BoundPath, EntityType) {
        guard case .name(let setName) = first.kind else {
            throw binder.semantic("the resource path must start with an entity set", at: first.range)
        }
        guard let entitySet = model.entitySet(named: setName) else {
            if model.singleton(named: setName) != nil {
                throw binder.unsupported("the offline store does not keep singletons: '\(setName)'", at: first.range)
            }
            throw binder.semantic("unknown entity set '\(setName)'", at: first.range)
        }
        guard let (type, typeName) = model.entityTypeAndQualifiedName(named: entitySet.entityType) else {
            throw binder.semantic("entity set '\(setName)' has the unknown type '\(entitySet.entityType)'", at: first.range)
        }
        var path = BoundPath(rootSet: setName, rootKey: nil, steps: [], entitySet: setName, entityType: typeName,
                             castTypes: nil, isCollection: true)
        if first.argumentLists.count > 1, let extra = first.argumentLists.last {
            throw binder.semantic("'\(setName)' takes one key predicate", at: extra.range)
        }
        if let keyList = first.argumentLists.first {
            path.rootKey = try bindKey(keyList, of: type, setName: setName)
            path.isCollection = false
        }
        return (path, type)
    }

    /// Extends `path` by the segment at `index`; returns the target when that segment ends the
    /// path's entity part (`$count`, a property, an operation), nil to go on.
    private func follow(_ segments: [PathSegmentSyntax], at index: Int,
                        path: inout BoundPath, type: inout EntityType) throws(ODataError) -> BoundRequest.Target? {
        let segment = segments[index]
        switch segment.kind {
        case .keyValue(let literal):
            guard path.isCollection else { throw binder.semantic("a key cannot follow a single entity", at: segment.range) }
            let keys = model.keyProperties(of: type)
            guard keys.count == 1, let key = keys.first else {
                throw binder.semantic("key-as-segment needs a type with a single key property", at: segment.range)
            }
            try setKey([try keyValue(literal, for: key)], on: &path)
            return nil
        case .count:
            guard path.isCollection else { throw binder.semantic("$count needs a collection", at: segment.range) }
            guard index == segments.count - 1 else { throw binder.semantic("nothing may follow $count", at: segment.range) }
            return .count
        case .name(let name) where name.utf8.contains(UInt8(ascii: ".")):
            return try followQualifiedName(name, segment, path: &path, type: &type)
        case .name(let name):
            if path.isCollection {
                throw binder.semantic("'\(name)' cannot follow a collection: a key predicate is missing", at: segment.range)
            }
            if let navigation = model.navigationProperty(name, of: type) {
                try followNavigation(navigation, segment, path: &path, type: &type)
                return nil
            }
            if let property = model.property(name, of: type) {
                if model.isStreamProperty(property) {
                    // A V4 stream property (issue 35), from the stream folder like a media entity's `$value`.
                    guard index == segments.count - 1 else {
                        throw binder.semantic("nothing may follow the stream property '\(name)'", at: segment.range)
                    }
                    return .streamProperty(name: name)
                }
                return try propertyTarget(segments, from: index, type: type)
            }
            throw binder.semantic("'\(type.qualifiedName)' has no property '\(name)'", at: segment.range)
        case .value:
            // The stream of a media entity (issue 35), from the stream folder.
            guard type.hasStream else {
                throw binder.semantic("'\(type.qualifiedName)' is not a media entity type (no HasStream=\"true\"), so it has no '$value'",
                                      at: segment.range)
            }
            guard !path.isCollection else { throw binder.semantic("$value of a media entity needs its key", at: segment.range) }
            guard index == segments.count - 1 else { throw binder.semantic("nothing may follow $value", at: segment.range) }
            return .mediaValue
        default:
            throw binder.unsupported("this path segment is not supported by the offline store", at: segment.range)
        }
    }

    /// A qualified name: a cast to a derived type (with an optional key), or a bound operation,
    /// which makes the whole request an operation.
    private func followQualifiedName(_ name: String, _ segment: PathSegmentSyntax,
                                     path: inout BoundPath, type: inout EntityType) throws(ODataError) -> BoundRequest.Target? {
        if let derived = model.entityType(named: name), model.entityType(derived, isOrDerivesFrom: type.qualifiedName) {
            if derived.qualifiedName != type.qualifiedName { path.castTypes = binder.typesAdmitted(by: derived) }
            type = derived
            path.entityType = derived.qualifiedName
            if let keyList = segment.argumentLists.first {
                guard path.isCollection else { throw binder.semantic("a key cannot follow a single entity", at: keyList.range) }
                try setKey(try bindKey(keyList, of: type, setName: path.entitySet), on: &path)
            }
            return nil
        }
        if !model.operations(named: name).isEmpty { return .operation(name: name) }
        throw binder.semantic("'\(name)' is neither a type derived from '\(type.qualifiedName)' nor a bound operation", at: segment.range)
    }

    /// A navigation from a single entity, with its key when it leads to a collection.
    private func followNavigation(_ navigation: NavigationProperty, _ segment: PathSegmentSyntax,
                                  path: inout BoundPath, type: inout EntityType) throws(ODataError) {
        let name = navigation.name
        let bound = try binder.boundNavigation(navigation, sourceSet: path.entitySet, sourceType: type, at: segment.range)
        guard let targetType = model.entityType(named: bound.targetType) else {
            throw binder.semantic("navigation '\(name)' targets the unknown type '\(bound.targetType)'", at: segment.range)
        }
        path.steps.append(BoundPathStep(navigation: bound, key: nil))
        path.entitySet = bound.targetSet
        path.entityType = targetType.qualifiedName
        path.castTypes = nil
        path.isCollection = bound.isCollection
        type = targetType
        if let keyList = segment.argumentLists.first {
            guard path.isCollection else { throw binder.semantic("'\(name)' is a single entity and takes no key", at: keyList.range) }
            try setKey(try bindKey(keyList, of: type, setName: path.entitySet), on: &path)
        }
    }

    private func setKey(_ key: [BoundKeyValue], on path: inout BoundPath) throws(ODataError) {
        if path.steps.isEmpty {
            path.rootKey = key
        } else {
            path.steps[path.steps.count - 1].key = key
        }
        path.isCollection = false
    }

    /// `Set(1)/Address/City[/$value]`.
    private func propertyTarget(_ segments: [PathSegmentSyntax], from start: Int, type: EntityType) throws(ODataError) -> BoundRequest.Target {
        var names: [String] = []
        var properties: [Property] = []
        var rawValue = false
        for index in start..<segments.count {
            let segment = segments[index]
            switch segment.kind {
            case .name(let name):
                let property: Property?
                if let last = properties.last {
                    property = model.complexType(named: last.type.name).flatMap { complex in
                        model.typeHierarchy(of: complex).lazy.compactMap { $0.properties.first { $0.name == name } }.first
                    }
                } else {
                    property = model.property(name, of: type)
                }
                guard let property, !rawValue else { throw binder.semantic("unknown property '\(name)'", at: segment.range) }
                names.append(name)
                properties.append(property)
            case .value:
                guard index == segments.count - 1, let last = properties.last, last.type.primitiveType != nil || last.type.kind == .enumeration else {
                    throw binder.semantic("$value needs a primitive property", at: segment.range)
                }
                rawValue = true
            default:
                throw binder.semantic("this segment cannot follow a property", at: segment.range)
            }
        }
        return .property(path: names, rawValue: rawValue)
    }

    /// A key predicate: `(1)`, `('a')`, `(OrderID=1,Item=2)`, values typed against the key properties.
    func bindKey(_ list: ArgumentListSyntax, of type: EntityType, setName: String) throws(ODataError) -> [BoundKeyValue] {
        let keys = model.keyProperties(of: type)
        guard !keys.isEmpty else { throw binder.semantic("'\(setName)' has no key, so its entities cannot be addressed by key", at: list.range) }
        if list.arguments.count == 1, let only = list.arguments.first, only.name == nil {
            guard keys.count == 1, let key = keys.first else {
                throw binder.semantic("'\(setName)' has a key of \(keys.count) properties; name each one", at: list.range)
            }
            return [try keyValue(only.value, for: key)]
        }
        var values: [BoundKeyValue] = []
        for argument in list.arguments {
            guard let name = argument.name else {
                throw binder.semantic("a composite key names each property", at: argument.range)
            }
            guard let key = keys.first(where: { $0.name == name }) else {
                throw binder.semantic("'\(name)' is not a key property of '\(type.qualifiedName)'", at: argument.range)
            }
            guard !values.contains(where: { $0.property == name }) else {
                throw binder.semantic("key property '\(name)' is given twice", at: argument.range)
            }
            values.append(try keyValue(argument.value, for: key))
        }
        guard values.count == keys.count else {
            let missing = keys.filter { key in !values.contains { $0.property == key.name } }.map(\.name)
            throw binder.semantic("the key predicate lacks \(missing.joined(separator: ", "))", at: list.range)
        }
        return keys.compactMap { key in values.first { $0.property == key.name } }
    }

    private func keyValue(_ expression: ExpressionSyntax, for key: Property) throws(ODataError) -> BoundKeyValue {
        guard case .literal(let literal) = expression.kind else {
            throw binder.semantic("a key value must be a literal", at: expression.range)
        }
        return try keyValue(literal, for: key)
    }

    private func keyValue(_ literal: LiteralSyntax, for key: Property) throws(ODataError) -> BoundKeyValue {
        guard let type = key.type.primitiveType, let value = LiteralCoercion.value(literal, as: type) else {
            throw binder.semantic("key value \(literal.text) is not a valid \(key.type.name) for key property '\(key.name)'", at: literal.range)
        }
        return BoundKeyValue(property: key.name, type: type, value: value)
    }
}
