/// V2/V3 navigation: `Association`s and `AssociationSet`s turned into the V4 shape the rest of
/// the engine uses (target type, multiplicity, partner, referential constraints, and navigation
/// property bindings of entity sets).
extension ModelValidator {
    /// Gives every V2 navigation property its target type, multiplicity, partner and constraints.
    mutating func resolveAssociationNavigation() throws(ODataError) {
        try checkAssociations()
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            for t in schemas[s].entityTypes.indices {
                for n in schemas[s].entityTypes[t].navigationProperties.indices {
                    var navigation = schemas[s].entityTypes[t].navigationProperties[n]
                    guard navigation.association != nil else { continue }
                    try resolveAssociationNavigation(&navigation, in: namespace)
                    schemas[s].entityTypes[t].navigationProperties[n] = navigation
                }
            }
        }
    }

    /// Association ends name entity types; constraint roles name ends.
    private mutating func checkAssociations() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            for a in schemas[s].associations.indices {
                var association = schemas[s].associations[a]
                let qualifiedAssociation = namespace + "." + association.name
                for e in association.ends.indices {
                    let end = association.ends[e]
                    let name = qualify(end.type, in: namespace)
                    association.ends[e].type = name
                    guard entityType(named: name) == nil else { continue }
                    let problem = "End \(end.role) of Association \(association.name) has the Type \(name), which is not an entity type of the document"
                    if let setType = entityTypeOfAssociationSetEnd(qualifiedAssociation, role: end.role) {
                        // Seen in SAP-generated documents: the End names the entity set instead of its type.
                        try tolerate(fault(problem + "; the type of the entity set its AssociationSet names, \(setType), is used instead",
                                           at: end.sourceLine, element: "End", attribute: "Type"))
                        association.ends[e].type = setType
                    } else if isUsedByNavigation(qualifiedAssociation) {
                        throw fault(problem, at: end.sourceLine, element: "End", attribute: "Type")
                    } else {
                        try tolerate(fault(problem + " (no navigation property uses the association)",
                                           at: end.sourceLine, element: "End", attribute: "Type"))
                    }
                }
                if association.ends[0].role == association.ends[1].role {
                    throw fault("both ends of Association \(association.name) have the role \(association.ends[0].role)",
                                at: association.sourceLine, element: "Association")
                }
                if let constraint = association.referentialConstraint {
                    for role in [constraint.principalRole, constraint.dependentRole] where association.end(role: role) == nil {
                        throw fault("ReferentialConstraint of Association \(association.name) names the role \(role), which is not one of its ends",
                                    at: constraint.sourceLine, element: "ReferentialConstraint")
                    }
                }
                schemas[s].associations[a] = association
            }
        }
    }

    /// The entity type of the entity set that an association set puts the given role in.
    private func entityTypeOfAssociationSetEnd(_ association: String, role: String) -> String? {
        for schema in schemas {
            for container in schema.entityContainers {
                for set in container.associationSets where qualify(set.association, in: schema.namespace) == association {
                    guard let end = set.ends.first(where: { $0.role == role }),
                          let entitySet = container.entitySet(named: end.entitySet) else { continue }
                    let typeName = qualify(entitySet.entityType, in: schema.namespace)
                    if entityType(named: typeName) != nil { return typeName }
                }
            }
        }
        return nil
    }

    private func isUsedByNavigation(_ association: String) -> Bool {
        for schema in schemas {
            for type in schema.entityTypes {
                for navigation in type.navigationProperties {
                    if let link = navigation.association, qualify(link.relationship, in: schema.namespace) == association { return true }
                }
            }
        }
        return false
    }

    private func association(named name: String) -> Association? {
        guard case .association(let schema, let index) = declarations[name] else { return nil }
        return schemas[schema].associations[index]
    }

    private func resolveAssociationNavigation(_ navigation: inout NavigationProperty, in namespace: String) throws(ODataError) {
        guard let link = navigation.association else { return }
        let what = "NavigationProperty \(navigation.name)"
        let relationship = qualify(link.relationship, in: namespace)
        guard let association = association(named: relationship) else {
            throw fault("\(what) has the Relationship \(relationship), which is not an Association of the document",
                        at: navigation.sourceLine, element: "NavigationProperty", attribute: "Relationship")
        }
        guard let from = association.end(role: link.fromRole) else {
            throw fault("\(what) has FromRole \(link.fromRole), which is not a role of \(relationship)",
                        at: navigation.sourceLine, element: "NavigationProperty", attribute: "FromRole")
        }
        guard let to = association.end(role: link.toRole), link.toRole != link.fromRole else {
            throw fault("\(what) has ToRole \(link.toRole), which is not the other role of \(relationship)",
                        at: navigation.sourceLine, element: "NavigationProperty", attribute: "ToRole")
        }
        navigation.association = AssociationLink(relationship: relationship, fromRole: link.fromRole, toRole: link.toRole)
        navigation.type = TypeReference(name: to.type, isCollection: to.multiplicity == .many, kind: .entity)
        navigation.multiplicity = to.multiplicity
        navigation.onDelete = from.onDelete
        if let constraint = association.referentialConstraint, constraint.dependentRole == link.fromRole {
            navigation.referentialConstraints = zip(constraint.dependentProperties, constraint.principalProperties).map {
                ReferentialConstraint(property: $0.0, referencedProperty: $0.1)
            }
        }
        // The partner is the navigation property of the target type that uses the same association the other way.
        if let target = entityType(named: to.type) {
            let targetNamespace = self.namespace(of: to.type)
            for candidate in hierarchy(of: target) {
                for other in candidate.navigationProperties {
                    guard let otherLink = other.association else { continue }
                    if qualify(otherLink.relationship, in: targetNamespace) == relationship,
                       otherLink.fromRole == link.toRole, otherLink.toRole == link.fromRole {
                        navigation.partner = other.name
                    }
                }
            }
        }
    }

    /// Adds a navigation property binding for each navigation property an association set covers.
    mutating func bindAssociationSets() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            for c in schemas[s].entityContainers.indices {
                let container = schemas[s].entityContainers[c]
                for set in container.associationSets {
                    let name = qualify(set.association, in: namespace)
                    guard let association = association(named: name) else {
                        throw fault("AssociationSet \(set.name) has the Association \(name), which is not an Association of the document",
                                    at: set.sourceLine, element: "AssociationSet", attribute: "Association")
                    }
                    guard set.ends.count == 2 else {
                        throw fault("AssociationSet \(set.name) has \(set.ends.count) ends instead of 2", at: set.sourceLine, element: "AssociationSet")
                    }
                    for end in set.ends {
                        guard association.end(role: end.role) != nil else {
                            throw fault("End of AssociationSet \(set.name) has the Role \(end.role), which is not a role of \(name)",
                                        at: end.sourceLine, element: "End", attribute: "Role")
                        }
                        guard container.entitySet(named: end.entitySet) != nil else {
                            throw fault("End of AssociationSet \(set.name) has the EntitySet \(end.entitySet), which is not in container \(container.name)",
                                        at: end.sourceLine, element: "End", attribute: "EntitySet")
                        }
                    }
                    for (from, to) in [(set.ends[0], set.ends[1]), (set.ends[1], set.ends[0])] {
                        bind(association: name, from: from, to: to, container: c, schema: s)
                    }
                }
            }
        }
    }

    /// Binds the navigation properties that go from `from`'s role to `to`'s role.
    private mutating func bind(association: String, from: AssociationSetEnd, to: AssociationSetEnd, container: Int, schema: Int) {
        guard let setIndex = schemas[schema].entityContainers[container].entitySets.firstIndex(where: { $0.name == from.entitySet }) else { return }
        let set = schemas[schema].entityContainers[container].entitySets[setIndex]
        guard let setType = entityType(named: set.entityType) else { return }
        var paths: [String] = []
        for candidate in hierarchy(of: setType) {
            for navigation in candidate.navigationProperties where matches(navigation, association, from.role, to.role) {
                paths.append(navigation.name)
            }
        }
        // Navigation properties of derived types are bound through a type cast.
        for derivedSchema in schemas {
            for derived in derivedSchema.entityTypes where derived.baseType != nil {
                let chain = hierarchy(of: derived)
                guard chain.dropFirst().contains(where: { $0.qualifiedName == setType.qualifiedName }) else { continue }
                for navigation in derived.navigationProperties where matches(navigation, association, from.role, to.role) {
                    paths.append(derived.qualifiedName + "/" + navigation.name)
                }
            }
        }
        for path in paths where set.bindingTarget(forPath: path) == nil {
            schemas[schema].entityContainers[container].entitySets[setIndex].navigationPropertyBindings.append(
                NavigationPropertyBinding(path: path, target: to.entitySet, sourceLine: to.sourceLine))
        }
    }

    private func matches(_ navigation: NavigationProperty, _ association: String, _ fromRole: String, _ toRole: String) -> Bool {
        guard let link = navigation.association else { return false }
        return link.relationship == association && link.fromRole == fromRole && link.toRole == toRole
    }
}
