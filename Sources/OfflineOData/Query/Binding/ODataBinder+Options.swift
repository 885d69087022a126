/// Binding of the system query options, for a request and for each `$expand` level.
extension ODataBinder {
    /// `entityType` comes boxed: the expression binder keeps it, and boxing it here would copy it.
    func bindOptions(_ syntax: QueryOptionsSyntax, entitySet: String, entityType typeReference: EntityTypeReference, isCollection: Bool,
                     depth: Int, aliases: [ParameterAliasSyntax]) throws(ODataError) -> BoundQueryOptions {
        var options = BoundQueryOptions()
        try rejectUnsupported(syntax)
        var expressions = ExpressionBinder(binder: self, entitySet: entitySet, entityType: typeReference, aliases: aliases)
        // Through `map`, which lends the filter to the closure: `if let` copied the whole tree's root.
        options.filter = try syntax.filter.map { (filter: ExpressionSyntax) throws(ODataError) -> BoundExpression in
            let bound = try expressions.bind(filter)
            guard bound.type == .primitive(.boolean) || bound.type == .null else {
                throw semantic("$filter must be a Boolean expression, not \(bound.type)", at: filter.range)
            }
            return bound
        }
        if let search = syntax.search {
            options.search = try bindSearch(search, at: syntax.range(of: .search) ?? search.range)
        }
        for item in syntax.orderBy ?? [] {
            let bound = try expressions.bind(item.expression)
            switch bound.type {
            case .primitive, .enumeration, .null: break
            default: throw semantic("$orderby needs a primitive value, not \(bound.type)", at: item.expression.range)
            }
            options.orderBy.append(BoundOrderBy(expression: bound, descending: item.descending))
        }
        if let top = syntax.top {
            guard top >= 0 else { throw semantic("$top must not be negative", at: syntax.range(of: .top) ?? SourceRange(offset: 0, length: 0)) }
            options.top = top
        }
        if let skip = syntax.skip {
            guard skip >= 0 else { throw semantic("$skip must not be negative", at: syntax.range(of: .skip) ?? SourceRange(offset: 0, length: 0)) }
            options.skip = skip
        }
        if let select = syntax.select { options.select = try bindSelect(select, entityType: typeReference.type) }
        if let expand = syntax.expand {
            guard depth < maxExpandDepth else {
                throw semantic("$expand is nested deeper than \(maxExpandDepth) levels", at: syntax.range(of: .expand) ?? SourceRange(offset: 0, length: 0))
            }
            options.expand = try bindExpand(expand, entitySet: entitySet, entityType: typeReference.type, depth: depth, aliases: aliases)
        }
        options.includeCount = syntax.count == true || syntax.inlineCount == .allPages
        if options.includeCount && !isCollection {
            throw semantic("$count=true needs a collection", at: syntax.range(of: syntax.count != nil ? .count : .inlinecount) ?? SourceRange(offset: 0, length: 0))
        }
        return options
    }

    /// Options that are valid OData but that an offline store answers with a clear refusal.
    private func rejectUnsupported(_ syntax: QueryOptionsSyntax) throws(ODataError) {
        if syntax.skipToken != nil {
            throw unsupported("$skiptoken is not accepted: the offline store answers in one page and never sends next links", at: syntax.range(of: .skiptoken))
        }
        if syntax.deltaToken != nil { throw unsupported("$deltatoken is not supported offline", at: syntax.range(of: .deltatoken)) }
        if syntax.compute != nil { throw unsupported("$compute is not supported by the offline store", at: syntax.range(of: .compute)) }
        if syntax.levels != nil { throw unsupported("$levels is not supported by the offline store", at: syntax.range(of: .levels)) }
        if syntax.index != nil { throw unsupported("$index is not supported by the offline store", at: syntax.range(of: .index)) }
        if syntax.id != nil { throw unsupported("$id is not supported by the offline store", at: syntax.range(of: .id)) }
        if let format = syntax.format {
            let lowered = format.lowercased()
            guard lowered == "json" || lowered.hasPrefix("application/json") else {
                throw unsupported("$format=\(format) is not supported: the offline store answers in JSON", at: syntax.range(of: .format))
            }
        }
    }

    private func bindSelect(_ items: [SelectItemSyntax], entityType: EntityType) throws(ODataError) -> [[String]]? {
        var paths: [[String]] = []
        for item in items {
            var names: [String] = []
            var complex: ComplexType?
            var current = entityType
            for segment in item.path {
                guard case .name(let name) = segment.kind else {
                    throw semantic("this $select item is not supported", at: segment.range)
                }
                if name == "*" || name.hasSuffix(".*") { return nil }
                if name.utf8.contains(UInt8(ascii: ".")), complex == nil {
                    if let derived = model.entityType(named: name), model.entityType(derived, isOrDerivesFrom: current.qualifiedName) {
                        current = derived
                        continue
                    }
                    throw semantic("unknown type or operation '\(name)' in $select", at: segment.range)
                }
                let property: Property?
                if let complexType = complex {
                    property = model.typeHierarchy(of: complexType).lazy.compactMap { $0.properties.first { $0.name == name } }.first
                } else {
                    property = model.property(name, of: current)
                }
                if let property {
                    names.append(name)
                    complex = property.type.kind == .complex && !property.type.isCollection ? model.complexType(named: property.type.name) : nil
                    continue
                }
                if complex == nil, model.navigationProperty(name, of: current) != nil {
                    names.append(name)
                    break
                }
                throw semantic("'\(complex?.qualifiedName ?? current.qualifiedName)' has no property '\(name)'", at: segment.range)
            }
            if !names.isEmpty { paths.append(names) }
        }
        return paths
    }

    /// V4 `Nav($filter=...;$expand=...)` and V2 `A/B` (which expands `A`, then `B` inside it).
    private func bindExpand(_ items: [ExpandItemSyntax], entitySet: String, entityType: EntityType, depth: Int,
                            aliases: [ParameterAliasSyntax]) throws(ODataError) -> [BoundExpand] {
        var expands: [BoundExpand] = []
        for item in items {
            try addExpand(path: item.path[...], options: item.options, into: &expands, entitySet: entitySet,
                          entityType: entityType, depth: depth, aliases: aliases)
        }
        return expands
    }

    private func addExpand(path: ArraySlice<PathSegmentSyntax>, options: QueryOptionsSyntax?, into expands: inout [BoundExpand],
                           entitySet: String, entityType: EntityType, depth: Int, aliases: [ParameterAliasSyntax]) throws(ODataError) {
        guard let segment = path.first else { return }
        guard case .name(let name) = segment.kind else {
            throw unsupported("this $expand item is not supported by the offline store", at: segment.range)
        }
        if name == "*" { throw unsupported("$expand=* is not supported by the offline store; name the navigation properties", at: segment.range) }
        if name.utf8.contains(UInt8(ascii: ".")), let derived = model.entityType(named: name), model.entityType(derived, isOrDerivesFrom: entityType.qualifiedName) {
            try addExpand(path: path.dropFirst(), options: options, into: &expands, entitySet: entitySet, entityType: derived,
                          depth: depth, aliases: aliases)
            return
        }
        guard let navigation = model.navigationProperty(name, of: entityType) else {
            throw semantic("'\(entityType.qualifiedName)' has no navigation property '\(name)'", at: segment.range)
        }
        let bound = try boundNavigation(navigation, sourceSet: entitySet, sourceType: entityType, at: segment.range)
        guard let targetType = model.entityType(named: bound.targetType) else {
            throw semantic("navigation '\(name)' targets the unknown type '\(bound.targetType)'", at: segment.range)
        }
        let rest = path.dropFirst()
        let existing = expands.firstIndex { $0.navigation.name == name }
        var expand = existing.map { expands[$0] } ?? BoundExpand(navigation: bound, options: BoundQueryOptions())
        if rest.isEmpty {
            if let options {
                let nested = try bindOptions(options, entitySet: bound.targetSet, entityType: EntityTypeReference(targetType), isCollection: bound.isCollection,
                                             depth: depth + 1, aliases: aliases)
                let earlier = expand.options.expand
                expand.options = nested
                for item in earlier where !expand.options.expand.contains(where: { $0.navigation.name == item.navigation.name }) {
                    expand.options.expand.append(item)
                }
            }
        } else {
            guard depth + 1 < maxExpandDepth else { throw semantic("$expand is nested deeper than \(maxExpandDepth) levels", at: segment.range) }
            try addExpand(path: rest, options: options, into: &expand.options.expand, entitySet: bound.targetSet, entityType: targetType,
                          depth: depth + 1, aliases: aliases)
        }
        if let existing { expands[existing] = expand } else { expands.append(expand) }
    }
}
