/// Navigation properties lead to entity types; partners and referential constraints resolve.
extension ModelValidator {
    mutating func resolveNavigationProperties() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            // Taken out and put back, so that changes are made in place rather than on copies
            // (resolving a navigation type looks nothing up in `schemas` but declarations).
            var entityTypes = schemas[s].entityTypes
            schemas[s].entityTypes = []
            for t in entityTypes.indices where !entityTypes[t].navigationProperties.isEmpty {
                let owner = entityTypes[t].qualifiedName
                for n in entityTypes[t].navigationProperties.indices {
                    try resolveNavigation(&entityTypes[t].navigationProperties[n], owner: owner, in: namespace)
                }
            }
            schemas[s].entityTypes = entityTypes
            var complexTypes = schemas[s].complexTypes
            schemas[s].complexTypes = []
            for t in complexTypes.indices where !complexTypes[t].navigationProperties.isEmpty {
                let owner = complexTypes[t].qualifiedName
                for n in complexTypes[t].navigationProperties.indices {
                    try resolveNavigation(&complexTypes[t].navigationProperties[n], owner: owner, in: namespace)
                }
            }
            schemas[s].complexTypes = complexTypes
        }
    }

    private func resolveNavigation(_ navigation: inout NavigationProperty, owner: String, in namespace: String) throws(ODataError) {
        // Only built for a message.
        let name = navigation.name
        var what: String { "NavigationProperty \(name) of \(owner)" }
        if navigation.association == nil {
            try resolve(&navigation.type, in: namespace, what: what, at: navigation.sourceLine, element: "NavigationProperty")
            switch navigation.type.kind {
            case .entity, .external, .abstract(.entityType): break
            default:
                throw fault("\(what) has the type \(navigation.type), which is not an entity type", at: navigation.sourceLine,
                            element: "NavigationProperty", attribute: "Type")
            }
        }
    }

    /// Partners and referential constraints resolve (checked once all navigation types are known).
    func checkNavigationLinks() throws(ODataError) {
        for schema in schemas {
            for type in schema.entityTypes where !type.navigationProperties.isEmpty {
                let owner = type.qualifiedName
                for navigation in type.navigationProperties {
                    try checkLinks(of: navigation, owner: owner)
                }
            }
            for type in schema.complexTypes where !type.navigationProperties.isEmpty {
                let owner = type.qualifiedName
                for navigation in type.navigationProperties {
                    try checkLinks(of: navigation, owner: owner)
                }
            }
        }
    }

    private func checkLinks(of navigation: NavigationProperty, owner: String) throws(ODataError) {
        // Only built for a message.
        var what: String { "NavigationProperty \(navigation.name) of \(owner)" }
        let target = navigation.type.name
        guard case .entityType = declarations[target] else { return }
        if let partner = navigation.partner {
            guard member(partner, ofType: target)?.isNavigation == true else {
                throw fault("\(what) has the Partner \(partner), which is not a navigation property of \(target)",
                            at: navigation.sourceLine, element: "NavigationProperty", attribute: "Partner")
            }
        }
        for constraint in navigation.referentialConstraints {
            guard resolvesToProperty(constraint.property, ofType: owner) else {
                throw fault("ReferentialConstraint of \(what) names the Property \(constraint.property), which \(owner) does not have",
                            at: navigation.sourceLine, element: "NavigationProperty")
            }
            guard resolvesToProperty(constraint.referencedProperty, ofType: target) else {
                throw fault("ReferentialConstraint of \(what) names the ReferencedProperty \(constraint.referencedProperty), which \(target) does not have",
                            at: navigation.sourceLine, element: "NavigationProperty")
            }
        }
    }

    /// Whether a property path (`ID`, `Address/City`) leads to a structural property.
    func resolvesToProperty(_ path: String, ofType typeName: String) -> Bool {
        // A single segment (most keys and constraints) is looked up as is, without a copy of it.
        if !QualifiedNames.contains(path, UInt8(ascii: "/")) {
            guard !path.isEmpty, let found = member(path, ofType: typeName) else { return false }
            return !found.isNavigation
        }
        var current = typeName
        for segment in PathSegments(path) {
            guard let found = member(String(segment), ofType: current), !found.isNavigation else { return false }
            current = found.typeName
        }
        return !path.isEmpty
    }

    /// Entity types have keys (own or inherited) made of their own properties.
    ///
    /// What needs a key is what an entity set holds: the types of entity sets and of
    /// collection-valued containment navigation (the rule of OData 4.01). A keyless type used
    /// there is an error in V4 documents and a tolerated defect in EDMX 1.0 (V2/V3) documents,
    /// where SAP-flavoured services have them (the SAP Cloud SDK's test service on purpose). Any
    /// other keyless non-abstract type is fine in 4.01 and a tolerated defect before 4.01
    /// (Microsoft Graph v1.0 declares `admin` without a key for its singleton).
    mutating func checkKeys() throws(ODataError) {
        var needKeys: Set<String> = []
        for schema in schemas {
            for container in schema.entityContainers {
                for set in container.entitySets { needKeys.insert(qualify(set.entityType, in: schema.namespace)) }
            }
            for type in schema.entityTypes {
                for navigation in type.navigationProperties where navigation.containsTarget && navigation.type.isCollection {
                    needKeys.insert(navigation.type.name)
                }
            }
        }
        for schema in schemas {
            for type in schema.entityTypes {
                // An own key (most types) needs no walk up the base types.
                guard let key = type.key else {
                    if inheritsKey(type) { continue }
                    if type.isAbstract { continue }
                    let problem = fault("EntityType \(type.qualifiedName) has no key (neither its own Key nor one inherited from a base type)",
                                        at: type.sourceLine, element: "EntityType")
                    if needKeys.contains(type.qualifiedName) {
                        if version.usesV4Protocol { throw problem }
                        try tolerate(problem)
                    } else if version != .v401 {
                        try tolerate(problem)
                    }
                    continue
                }
                let typeName = type.qualifiedName
                for reference in key where !resolvesToProperty(reference.name, ofType: typeName) {
                    // The OASIS example special-characters.xml has this defect.
                    try tolerate(fault("the Key of EntityType \(type.qualifiedName) names \(reference.name), which is not a property of the type",
                                       at: reference.sourceLine, element: "PropertyRef", attribute: "Name"))
                }
            }
        }
    }

    /// Whether a base type of `type` declares a key. Walks the base types by name and reads each
    /// one's key where it stands: building the chain (``hierarchy(of:)``) copied every type in it,
    /// retaining each of its arrays, for the thousand-odd derived types of a large service. The
    /// walk is bounded by the number of declared names, so a cycle (rejected earlier) cannot hold it.
    private func inheritsKey(_ type: EntityType) -> Bool {
        var base = type.baseType
        var steps = 0
        while let name = base, steps <= declarations.count {
            guard case .entityType(let schema, let index) = declarations[name], schemas.indices.contains(schema),
                  schemas[schema].entityTypes.indices.contains(index) else { return false }
            if schemas[schema].entityTypes[index].key != nil { return true }
            base = schemas[schema].entityTypes[index].baseType
            steps += 1
        }
        return false
    }
}
