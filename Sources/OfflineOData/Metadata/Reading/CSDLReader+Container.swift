extension CSDLReader {
    func readEntityContainer(namespace: String) throws(ODataError) -> EntityContainer {
        var container = EntityContainer(namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): container.name = attribute.value
            case (.none, .extends): container.extends = attribute.value
            case (.dataServicesMetadata, .isDefaultEntityContainer): container.isDefault = try boolean(attribute)
            default: keepForeign(attribute, in: &container.foreignAttributes)
            }
        }
        container.name = try required(container.name, "Name", of: "EntityContainer")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .entitySet: container.entitySets.append(try readEntitySet())
            case .singleton: container.singletons.append(try readSingleton())
            case .functionImport: container.functionImports.append(try readFunctionImport())
            case .actionImport: container.actionImports.append(try readActionImport())
            case .associationSet: container.associationSets.append(try readAssociationSet())
            case .annotation: container.annotations.append(try readAnnotation())
            default: try stream.skipElement()
            }
        }
        return container
    }

    private func readEntitySet() throws(ODataError) -> EntitySet {
        var set = EntitySet(name: "", entityType: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): set.name = attribute.value
            case (.none, .entityType): set.entityType = sharedValue(attribute)
            case (.none, .includeInServiceDocument): set.includeInServiceDocument = try boolean(attribute)
            default: keepForeign(attribute, in: &set.foreignAttributes)
            }
        }
        set.name = try required(set.name, "Name", of: "EntitySet")
        set.entityType = try required(set.entityType, "EntityType", of: "EntitySet \(set.name)")
        try readBindings(into: &set.navigationPropertyBindings, annotations: &set.annotations)
        return set
    }

    private func readSingleton() throws(ODataError) -> Singleton {
        var singleton = Singleton(name: "", type: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): singleton.name = attribute.value
            case (.none, .type): singleton.type = sharedValue(attribute)
            default: keepForeign(attribute, in: &singleton.foreignAttributes)
            }
        }
        singleton.name = try required(singleton.name, "Name", of: "Singleton")
        singleton.type = try required(singleton.type, "Type", of: "Singleton \(singleton.name)")
        try readBindings(into: &singleton.navigationPropertyBindings, annotations: &singleton.annotations)
        return singleton
    }

    private func readBindings(into bindings: inout [NavigationPropertyBinding], annotations: inout [Annotation]) throws(ODataError) {
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .navigationPropertyBinding:
                var binding = NavigationPropertyBinding(path: "", target: "", sourceLine: SourceLine(stream.line))
                try stream.forEachAttribute { attribute throws(ODataError) in
                    guard attribute.namespaceKind == .none else { return }
                    switch attribute.csdlName {
                    case .path: binding.path = attribute.value
                    case .target: binding.target = sharedValue(attribute)
                    default: break
                    }
                }
                binding.path = try required(binding.path, "Path", of: "NavigationPropertyBinding")
                binding.target = try required(binding.target, "Target", of: "NavigationPropertyBinding")
                bindings.append(binding)
                try stream.skipElement()
            case .annotation:
                annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
    }

    private func readFunctionImport() throws(ODataError) -> FunctionImport {
        var functionImport = FunctionImport(name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): functionImport.name = attribute.value
            case (.none, .function): functionImport.function = attribute.value
            case (.none, .entitySet): functionImport.entitySet = attribute.value
            case (.none, .includeInServiceDocument): functionImport.includeInServiceDocument = try boolean(attribute)
            case (.none, .returnType): functionImport.returnType = try typeReference(attribute)
            case (.none, .isSideEffecting): functionImport.isSideEffecting = try boolean(attribute)
            case (.none, .isBindable): functionImport.isBindable = try boolean(attribute)
            case (.none, .isComposable): functionImport.isComposable = try boolean(attribute)
            case (.dataServicesMetadata, .httpMethod): functionImport.declaredHTTPMethod = attribute.value
            default: keepForeign(attribute, in: &functionImport.foreignAttributes)
            }
        }
        functionImport.name = try required(functionImport.name, "Name", of: "FunctionImport")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .parameter:
                functionImport.parameters.append(try readParameter())
            case .returnType:
                let (returnType, entitySet) = try readReturnType()
                if functionImport.returnType == nil { functionImport.returnType = returnType.type }
                if functionImport.entitySet == nil { functionImport.entitySet = entitySet }
            case .annotation:
                functionImport.annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
        return functionImport
    }

    private func readActionImport() throws(ODataError) -> ActionImport {
        var actionImport = ActionImport(name: "", action: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): actionImport.name = attribute.value
            case (.none, .action): actionImport.action = attribute.value
            case (.none, .entitySet): actionImport.entitySet = attribute.value
            default: keepForeign(attribute, in: &actionImport.foreignAttributes)
            }
        }
        actionImport.name = try required(actionImport.name, "Name", of: "ActionImport")
        actionImport.action = try required(actionImport.action, "Action", of: "ActionImport \(actionImport.name)")
        actionImport.annotations = try readAnnotationChildren()
        return actionImport
    }

    private func readAssociationSet() throws(ODataError) -> AssociationSet {
        var set = AssociationSet(name: "", association: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): set.name = attribute.value
            case (.none, .association): set.association = attribute.value
            default: keepForeign(attribute, in: &set.foreignAttributes)
            }
        }
        set.name = try required(set.name, "Name", of: "AssociationSet")
        set.association = try required(set.association, "Association", of: "AssociationSet \(set.name)")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .end:
                var end = AssociationSetEnd(role: "", entitySet: "", sourceLine: SourceLine(stream.line))
                try stream.forEachAttribute { attribute throws(ODataError) in
                    guard attribute.namespaceKind == .none else { return }
                    switch attribute.csdlName {
                    case .role: end.role = attribute.value
                    case .entitySet: end.entitySet = attribute.value
                    default: break
                    }
                }
                end.role = try required(end.role, "Role", of: "AssociationSet End")
                end.entitySet = try required(end.entitySet, "EntitySet", of: "AssociationSet End")
                set.ends.append(end)
                try stream.skipElement()
            case .annotation:
                set.annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
        return set
    }

    func readAssociation(namespace: String) throws(ODataError) -> Association {
        var association = Association(namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): association.name = attribute.value
            default: keepForeign(attribute, in: &association.foreignAttributes)
            }
        }
        association.name = try required(association.name, "Name", of: "Association")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .end:
                association.ends.append(try readAssociationEnd())
            case .referentialConstraint:
                if association.referentialConstraint != nil {
                    throw stream.error("Association \(association.name) has more than one ReferentialConstraint")
                }
                association.referentialConstraint = try readAssociationConstraint()
            case .annotation:
                association.annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
        if association.ends.count != 2 {
            throw ODataError(.metadata, "Association \(association.name) has \(association.ends.count) ends instead of 2",
                             line: association.sourceLine.line,
                             column: stream.locator.column(line: association.sourceLine.line, element: "Association"))
        }
        return association
    }

    private func readAssociationEnd() throws(ODataError) -> AssociationEnd {
        var end = AssociationEnd(role: "", type: "", multiplicity: .zeroOrOne, sourceLine: SourceLine(stream.line))
        var multiplicity = ""
        try stream.forEachAttribute { attribute throws(ODataError) in
            guard attribute.namespaceKind == .none else { return }
            switch attribute.csdlName {
            case .role: end.role = attribute.value
            case .type: end.type = sharedValue(attribute)
            case .multiplicity: multiplicity = attribute.value
            default: break
            }
        }
        end.role = try required(end.role, "Role", of: "Association End")
        end.type = try required(end.type, "Type", of: "Association End \(end.role)")
        guard let parsed = Multiplicity(rawValue: multiplicity) else {
            throw stream.error("End \(end.role) has Multiplicity=\"\(multiplicity)\"; expected 1, 0..1 or *", attribute: "Multiplicity")
        }
        end.multiplicity = parsed
        try stream.forEachChild { () throws(ODataError) in
            if currentElement == .onDelete {
                try stream.forEachAttribute { attribute throws(ODataError) in
                    if attribute.namespaceKind == .none, attribute.csdlName == .action { end.onDelete = attribute.value }
                }
            }
            try stream.skipElement()
        }
        return end
    }

    private func readAssociationConstraint() throws(ODataError) -> AssociationConstraint {
        var constraint = AssociationConstraint(principalRole: "", dependentRole: "", sourceLine: SourceLine(stream.line))
        try stream.forEachChild { () throws(ODataError) in
            let element = currentElement
            guard element == .principal || element == .dependent else { return try stream.skipElement() }
            var role = ""
            try stream.forEachAttribute { attribute throws(ODataError) in
                if attribute.namespaceKind == .none, attribute.csdlName == .role { role = attribute.value }
            }
            var properties: [String] = []
            try stream.forEachChild { () throws(ODataError) in
                if currentElement == .propertyRef {
                    try stream.forEachAttribute { attribute throws(ODataError) in
                        if attribute.namespaceKind == .none, attribute.csdlName == .name { properties.append(attribute.value) }
                    }
                }
                try stream.skipElement()
            }
            if element == .principal {
                constraint.principalRole = role
                constraint.principalProperties = properties
            } else {
                constraint.dependentRole = role
                constraint.dependentProperties = properties
            }
        }
        guard !constraint.principalRole.isEmpty, !constraint.dependentRole.isEmpty,
              constraint.principalProperties.count == constraint.dependentProperties.count,
              !constraint.principalProperties.isEmpty
        else {
            throw ODataError(.metadata, "ReferentialConstraint needs a Principal and a Dependent with the same number of PropertyRefs",
                             line: constraint.sourceLine.line,
                             column: stream.locator.column(line: constraint.sourceLine.line, element: "ReferentialConstraint"))
        }
        return constraint
    }
}
