/// Member paths in expressions: properties (through complex properties), to-one navigation chains
/// (`Agency/City`), casts, lambdas over to-many navigations and collections, `$count`, and the SAP
/// offline functions `sap.islocal()` and `sap.hasPendingChanges()`.
extension ExpressionBinder {
    mutating func bindPath(_ path: MemberPathSyntax, range: SourceRange) throws(ODataError) -> BoundExpression {
        var segments = path.segments[...]
        var scope = 0
        switch path.root {
        case .implicit:
            if !lambdaScopes.isEmpty, case .name(let name)? = segments.first?.kind,
               let index = lambdaScopes.indices.last(where: { lambdaScopes[$0].name == name }) {
                scope = index + 1
                segments = segments.dropFirst()
            }
        case .it:
            scope = 0
        case .this:
            scope = scopeCount - 1
        case .root:
            throw binder.unsupported("$root is not supported in offline $filter", at: range)
        case .alias(let name):
            guard segments.isEmpty else { throw binder.unsupported("paths below a parameter alias are not supported", at: range) }
            return try bind(ExpressionSyntax(.parameterAlias(name), range: range))
        }
        if scope == 0 { return try walk(segments, scope: 0, set: itSet, type: itType, range: range) }
        guard lambdaScopes.indices.contains(scope - 1) else {
            throw ODataError(.internalError, "range variable \(scope) is missing")
        }
        // The kind is read in place: copying the whole variable copies its name too.
        switch lambdaScopes[scope - 1].kind {
        case .item(let element):
            guard let first = segments.first else {
                let type: BoundType = element.map { .primitive($0) } ?? .other("complex item")
                return BoundExpression(.member(BoundMember(scope: scope, navigations: [], propertyPath: [])), type: type, range: range)
            }
            throw binder.unsupported("members of collection items are not supported in offline $filter", at: first.range)
        case .entity(let set, let type):
            return try walk(segments, scope: scope, set: set, type: type, range: range)
        }
    }

    private mutating func walk(_ segments: ArraySlice<PathSegmentSyntax>, scope: Int, set startSet: String, type startType: EntityTypeReference,
                               range: SourceRange) throws(ODataError) -> BoundExpression {
        var set = startSet
        var type = startType
        var navigations: [BoundNavigation] = []
        var propertyPath: [String] = []
        var casts: [BoundTypeCast] = []
        var complex: ComplexType?
        var index = segments.startIndex
        while index < segments.endIndex {
            // The segment's fields are read in place; the whole segment is copied only past the
            // property cases below (navigations, casts, functions), which are rarer.
            let isLast = index == segments.index(before: segments.endIndex)
            guard case .name(let name) = segments[index].kind else {
                throw binder.semantic("unexpected segment in a member path", at: segments[index].range)
            }
            if let complexType = complex {
                guard let property = model.typeHierarchy(of: complexType).lazy.compactMap({ $0.properties.first { $0.name == name } }).first else {
                    throw binder.semantic("'\(complexType.qualifiedName)' has no property '\(name)'", at: segments[index].range)
                }
                propertyPath.append(name)
                if let leaf = try leafOrContinue(property.type, named: name, segments: segments, index: index, scope: scope,
                                                 navigations: navigations, propertyPath: propertyPath, casts: casts, complex: &complex, range: range) { return leaf }
                index += 1
                continue
            }
            // A plain property, the common case, first: found by name in place, without copying
            // every property it passes over. (Property names have no dot, so casts and the SAP
            // functions below are never shadowed.)
            if segments[index].argumentLists.isEmpty, let own = Self.ownPropertyIndex(name, of: type.type) {
                // Made with its one element when it is the first (the common case): cheaper
                // than appending to an empty array, which first grows it.
                if propertyPath.isEmpty { propertyPath = [name] } else { propertyPath.append(name) }
                // Only the property's type is read: copying the whole property costs a dozen retains.
                if let leaf = try leafOrContinue(type.type.properties[own].type, named: name, segments: segments, index: index, scope: scope,
                                                 navigations: navigations, propertyPath: propertyPath, casts: casts, complex: &complex, range: range) { return leaf }
                index += 1
                continue
            }
            if segments[index].argumentLists.isEmpty, let property = model.property(name, of: type.type) {
                propertyPath.append(name)
                if let leaf = try leafOrContinue(property.type, named: name, segments: segments, index: index, scope: scope,
                                                 navigations: navigations, propertyPath: propertyPath, casts: casts, complex: &complex, range: range) { return leaf }
                index += 1
                continue
            }
            let segment = segments[index]
            if name.utf8.contains(UInt8(ascii: ".")) {
                if let leaf = try qualifiedSegment(segment, named: name, isLast: isLast, scope: scope, navigations: navigations,
                                                   casts: &casts, type: &type, range: range) { return leaf }
                index += 1
                continue
            }
            guard segment.argumentLists.isEmpty else {
                throw binder.semantic("'\(name)' is not a function", at: segment.range)
            }
            if let navigation = type.type.navigationProperty(named: name) ?? model.navigationProperty(name, of: type.type) {
                let bound = try binder.boundNavigation(navigation, sourceSet: set, sourceType: type.type, at: segment.range)
                guard let target = model.entityType(named: bound.targetType) else {
                    throw binder.semantic("navigation '\(name)' targets the unknown type '\(bound.targetType)'", at: segment.range)
                }
                if bound.isCollection {
                    let source = BoundCollectionSource.navigation(scope: scope, path: navigations, collection: bound, casts: casts)
                    return try collectionOperation(source, variable: .entity(set: bound.targetSet, type: EntityTypeReference(target)),
                                                   after: segments[(index + 1)...], name: name, at: segment.range, range: range)
                }
                navigations.append(bound)
                set = bound.targetSet
                type = EntityTypeReference(target)
                index += 1
                continue
            }
            throw binder.semantic("'\(type.type.qualifiedName)' has no property '\(name)'", at: segment.range)
        }
        if complex != nil {
            throw binder.semantic("a complex value cannot be used here; name one of its properties", at: range)
        }
        return BoundExpression(.member(BoundMember(scope: scope, navigations: navigations, propertyPath: propertyPath, casts: casts)),
                               type: .entity(type.type.qualifiedName), range: range)
    }

    /// A qualified name in a member path: one of the SAP local-state functions (the path's leaf,
    /// returned) or a cast to a derived type (applied to `type` and `casts`; nil: the walk goes on).
    private func qualifiedSegment(_ segment: PathSegmentSyntax, named name: String, isLast: Bool, scope: Int,
                                  navigations: [BoundNavigation], casts: inout [BoundTypeCast], type: inout EntityTypeReference,
                                  range: SourceRange) throws(ODataError) -> BoundExpression? {
        if let test = LocalStateTest(functionName: name.lowercased()) {
            guard isLast, navigations.isEmpty, segment.argumentLists.count == 1, segment.argumentLists.first?.arguments.isEmpty == true else {
                throw binder.semantic("\(name)() takes no arguments and applies to the entity itself", at: segment.range)
            }
            return BoundExpression(.localState(test, scope: scope), type: .primitive(.boolean), range: range)
        }
        if let derived = model.entityType(named: name), model.entityType(derived, isOrDerivesFrom: type.type.qualifiedName) {
            if derived.qualifiedName != type.type.qualifiedName {
                casts.append(BoundTypeCast(hop: navigations.count, types: binder.typesAdmitted(by: derived)))
            }
            type = EntityTypeReference(derived)
            return nil
        }
        throw binder.semantic("unknown function or type '\(name)'", at: segment.range)
    }

    /// Where the type's own property `name` is, compared in place (``EntityType/property(named:)``
    /// copies each property it passes, and the one it returns).
    private static func ownPropertyIndex(_ name: String, of type: EntityType) -> Int? {
        for index in type.properties.indices where type.properties[index].name == name { return index }
        return nil
    }

    /// After property `name` of type `reference`: returns the bound leaf, or nil (and sets
    /// `complex`) to continue into a complex value.
    private mutating func leafOrContinue(_ reference: TypeReference, named name: String, segments: ArraySlice<PathSegmentSyntax>,
                                         index: Int, scope: Int, navigations: [BoundNavigation], propertyPath: [String],
                                         casts: [BoundTypeCast], complex: inout ComplexType?, range: SourceRange) throws(ODataError) -> BoundExpression? {
        let member = BoundMember(scope: scope, navigations: navigations, propertyPath: propertyPath, casts: casts)
        let rest = segments[(index + 1)...]
        if reference.isCollection {
            let element = reference.primitiveType
            let source = BoundCollectionSource.items(member, element: element)
            if rest.isEmpty { return BoundExpression(.member(member), type: .collection(element: element), range: range) }
            return try collectionOperation(source, variable: .item(element), after: rest, name: name, at: segments[index].range, range: range)
        }
        let type: BoundType
        switch reference.kind {
        case .primitive(let primitive), .definition(let primitive):
            type = .primitive(primitive)
        case .enumeration:
            type = .enumeration(model.qualifiedName(reference.name))
        case .complex:
            complex = model.complexType(named: reference.name)
            if complex == nil { throw binder.semantic("unknown complex type '\(reference.name)'", at: segments[index].range) }
            return nil
        default:
            type = .other(reference.name)
        }
        if let next = rest.first {
            throw binder.semantic("'\(name)' is a primitive property; nothing can follow it", at: next.range)
        }
        return BoundExpression(.member(member), type: type, range: range)
    }

    /// `Coll/any(...)`, `Coll/all(...)`, `Coll/$count`.
    private mutating func collectionOperation(_ source: BoundCollectionSource, variable: RangeVariable.Kind,
                                              after rest: ArraySlice<PathSegmentSyntax>, name: String, at segmentRange: SourceRange,
                                              range: SourceRange) throws(ODataError) -> BoundExpression {
        guard let next = rest.first, rest.count == 1 else {
            throw binder.semantic("'\(name)' is a collection: use any(), all() or $count on it", at: rest.first?.range ?? segmentRange)
        }
        switch next.kind {
        case .count:
            if next.countOptions != nil {
                throw binder.unsupported("options inside $count are not supported in offline $filter", at: next.range)
            }
            return BoundExpression(.count(source), type: .primitive(.int64), range: range)
        case .lambda(let lambda):
            let scope = scopeCount
            var predicate: BoundExpression?
            if let body = lambda.predicate, let variableName = lambda.variable {
                lambdaScopes.append(RangeVariable(name: variableName, kind: variable))
                defer { lambdaScopes.removeLast() }
                let bound = try bind(body)
                try requireBoolean(bound, at: body.range, for: lambda.quantifier.rawValue)
                predicate = bound
            }
            return BoundExpression(.lambda(BoundLambda(quantifier: lambda.quantifier, source: source, scope: scope, predicate: predicate)),
                                   type: .primitive(.boolean), range: range)
        default:
            throw binder.semantic("'\(name)' is a collection: use any(), all() or $count on it", at: next.range)
        }
    }
}
