/// What a defining request downloads, resolved against the model: the entity set its entities
/// are stored in, and the tree of `$expand`ed navigations with each level's entity set.
///
/// Accepted: an entity set (`Agencies`), with a key (`Agencies('1')`), followed by navigations
/// to entities (`People('x')/Friends`), and type casts. Refused with ``ODataError/Code/unsupported``:
/// function and action imports, bound operations, singletons, properties, `$count`, `$value`,
/// `$ref`, `$levels`, and navigations to contained entities (they have no entity set to live in).
/// The rest of the query (`$filter`, `$select`, ...) is the service's business: the result is what
/// the service answers.
struct DefiningRequestTarget: Sendable {
    /// The entity set the request's entities are stored in.
    let entitySet: String
    /// True when the request addresses one entity (a key, or a single-valued navigation).
    let isSingleEntity: Bool
    /// The root of the expansion tree: the target set and its expanded navigations.
    let root: ExpandNode

    /// Resolves `url` (relative to the service root) against `model`.
    ///
    /// - Throws: ``ODataError/Code/syntax`` for a malformed URL, ``ODataError/Code/semantic`` for
    ///   names the model does not have, ``ODataError/Code/unsupported`` for what is not a collection
    ///   of entities.
    init(url: String, model: MetadataModel, dialect: Dialect) throws(ODataError) {
        let request = try ODataURLParser(dialect: dialect).parse(url)
        let segments = request.path.segments
        guard let first = segments.first, case .name(let name) = first.kind else {
            throw ODataError(.unsupported, "defining request '\(url)' does not start with an entity set")
        }
        if model.functionImport(named: name) != nil || model.actionImport(named: name) != nil {
            throw ODataError(.unsupported, "defining request '\(url)' calls the function import '\(name)': the offline store only holds collections of entities")
        }
        if model.singleton(named: name) != nil {
            throw ODataError(.unsupported, "defining request '\(url)' reads the singleton '\(name)': the offline store holds entity sets only")
        }
        guard let set = model.entitySet(named: name), var type = model.entityType(named: set.entityType) else {
            throw ODataError(.semantic, "defining request '\(url)': '\(name)' is not an entity set of the service")
        }
        var setName = set.name
        var single = !first.argumentLists.isEmpty
        var castPrefix = ""
        for segment in segments.dropFirst() {
            guard case .name(let segmentName) = segment.kind else {
                throw ODataError(.unsupported, "defining request '\(url)' does not address a collection of entities (only entity sets, keys and navigations are accepted)")
            }
            if let cast = model.entityType(named: segmentName), model.entityType(cast, isOrDerivesFrom: type.qualifiedName) {
                type = cast
                castPrefix = cast.qualifiedName + "/"
                continue
            }
            guard let navigation = model.navigationProperty(segmentName, of: type) else {
                if model.property(segmentName, of: type) != nil {
                    throw ODataError(.unsupported, "defining request '\(url)' reads the property '\(segmentName)', not a collection of entities")
                }
                if !model.operations(named: segmentName).isEmpty {
                    throw ODataError(.unsupported, "defining request '\(url)' calls the operation '\(segmentName)': the offline store only holds collections of entities")
                }
                throw ODataError(.semantic, "defining request '\(url)': '\(segmentName)' is not a navigation property of '\(type.qualifiedName)'")
            }
            let step = try Self.resolve(navigation, from: setName, castPrefix: castPrefix, model: model, url: url)
            setName = step.entitySet
            type = step.type
            castPrefix = ""
            single = navigation.multiplicity != .many || !segment.argumentLists.isEmpty
        }
        var root = ExpandNode(entitySet: setName, entityType: type.qualifiedName)
        try Self.addExpansions(request.options.expand ?? [], to: &root, model: model, dialect: dialect, url: url)
        entitySet = setName
        isSingleEntity = single
        self.root = root
    }

    /// Every entity set the tree stores entities in (the target first).
    var entitySets: [String] {
        var names: [String] = []
        var pending = [root]
        while let node = pending.popLast() {
            if !names.contains(node.entitySet) { names.append(node.entitySet) }
            pending.append(contentsOf: node.navigations.values.map(\.node))
        }
        return names
    }

    /// The first node of the tree that stores entities in `entitySet`.
    func node(forEntitySet entitySet: String) -> ExpandNode? {
        var pending = [root]
        while !pending.isEmpty {
            let node = pending.removeFirst()
            if node.entitySet == entitySet { return node }
            pending.append(contentsOf: node.navigations.values.map(\.node))
        }
        return nil
    }

    // MARK: - Resolution

    private static func resolve(_ navigation: NavigationProperty, from entitySet: String, castPrefix: String,
                                model: MetadataModel, url: String) throws(ODataError) -> (entitySet: String, type: EntityType) {
        guard let source = model.entitySet(named: entitySet) else {
            throw ODataError(.semantic, "defining request '\(url)': unknown entity set '\(entitySet)'")
        }
        let bound = source.bindingTarget(forPath: castPrefix + navigation.name) ?? source.bindingTarget(forPath: navigation.name)
        guard let targetName = bound else {
            if navigation.containsTarget {
                throw ODataError(.unsupported, "defining request '\(url)': '\(navigation.name)' leads to contained entities, which have no entity set to store them in")
            }
            throw ODataError(.semantic, "defining request '\(url)': navigation '\(navigation.name)' of '\(entitySet)' is bound to no entity set")
        }
        // A target in another container is written `Namespace.Container/Set`.
        let simpleName = targetName.split(separator: "/").last.map(String.init) ?? targetName
        guard let target = model.entitySet(named: simpleName), let type = model.entityType(named: target.entityType) else {
            throw ODataError(.unsupported, "defining request '\(url)': navigation '\(navigation.name)' leads to '\(targetName)', which is not an entity set of the default container")
        }
        return (target.name, type)
    }

    private static func addExpansions(_ items: [ExpandItemSyntax], to node: inout ExpandNode, model: MetadataModel,
                                      dialect: Dialect, url: String) throws(ODataError) {
        for item in items {
            if item.options?.levels != nil {
                throw ODataError(.unsupported, "defining request '\(url)': $levels in $expand is not supported offline")
            }
            try add(item.path[...], options: item.options, to: &node, model: model, dialect: dialect, url: url)
        }
    }

    /// Adds one `$expand` path below `node`: V2 `A/B` expands A and A's B; V4 paths may hold type casts.
    private static func add(_ path: ArraySlice<PathSegmentSyntax>, options: QueryOptionsSyntax?, to node: inout ExpandNode,
                            model: MetadataModel, dialect: Dialect, url: String) throws(ODataError) {
        guard let type = model.entityType(named: node.entityType) else { return }
        var effectiveType = type
        var castPrefix = ""
        var rest = path
        while let segment = rest.first {
            guard case .name(let name) = segment.kind else {
                throw ODataError(.unsupported, "defining request '\(url)': only navigation properties can be expanded offline ($ref, $count and $value are not)")
            }
            if name == "*" {
                rest = rest.dropFirst()
                for navigation in model.navigationProperties(of: effectiveType) {
                    guard !navigation.containsTarget else { continue }
                    try expand(navigation, castPrefix: castPrefix, rest: rest, options: options, node: &node, model: model, dialect: dialect, url: url)
                }
                return
            }
            if let cast = model.entityType(named: name), model.entityType(cast, isOrDerivesFrom: effectiveType.qualifiedName) {
                effectiveType = cast
                castPrefix = cast.qualifiedName + "/"
                rest = rest.dropFirst()
                continue
            }
            guard let navigation = model.navigationProperty(name, of: effectiveType) else {
                throw ODataError(.semantic, "defining request '\(url)': '\(name)' in $expand is not a navigation property of '\(effectiveType.qualifiedName)'")
            }
            try expand(navigation, castPrefix: castPrefix, rest: rest.dropFirst(), options: options, node: &node, model: model, dialect: dialect, url: url)
            return
        }
    }

    private static func expand(_ navigation: NavigationProperty, castPrefix: String, rest: ArraySlice<PathSegmentSyntax>,
                               options: QueryOptionsSyntax?, node: inout ExpandNode, model: MetadataModel, dialect: Dialect,
                               url: String) throws(ODataError) {
        let target = try resolve(navigation, from: node.entitySet, castPrefix: castPrefix, model: model, url: url)
        var expanded = node.navigations[navigation.name] ?? ExpandedNavigation(
            name: navigation.name, isCollection: navigation.multiplicity == .many,
            recordsLinks: NavigationLinks.areRecorded(for: navigation, model: model),
            node: ExpandNode(entitySet: target.entitySet, entityType: target.type.qualifiedName))
        if !rest.isEmpty {
            // V2 writes nested expansions as paths; V4 only reaches here through type casts.
            try add(rest, options: nil, to: &expanded.node, model: model, dialect: dialect, url: url)
        }
        if let nested = options?.expand {
            try addExpansions(nested, to: &expanded.node, model: model, dialect: dialect, url: url)
        }
        node.navigations[navigation.name] = expanded
    }
}

/// One level of the expansion tree: entities stored in `entitySet`, with their expanded navigations.
struct ExpandNode: Sendable {
    let entitySet: String
    let entityType: String
    /// By navigation property name, as payloads write it.
    var navigations: [String: ExpandedNavigation] = [:]

    init(entitySet: String, entityType: String) {
        self.entitySet = entitySet
        self.entityType = entityType
    }
}

/// An expanded navigation property and where its entities go.
struct ExpandedNavigation: Sendable {
    let name: String
    let isCollection: Bool
    /// Whether the relation is kept in `ood_link` (no referential constraint gives it by columns).
    let recordsLinks: Bool
    var node: ExpandNode
}

/// Which relations the store keeps as `ood_link` rows: those no foreign-key column can give.
enum NavigationLinks {
    /// True when neither `navigation` nor its partner has a referential constraint. With one, the
    /// dependent's columns already say which entities are related, so reads join on them instead.
    static func areRecorded(for navigation: NavigationProperty, model: MetadataModel) -> Bool {
        guard navigation.referentialConstraints.isEmpty else { return false }
        if let partnerName = navigation.partner, let target = model.entityType(named: navigation.targetTypeName),
           let partner = model.navigationProperty(partnerName, of: target), !partner.referentialConstraints.isEmpty {
            return false
        }
        return true
    }
}
