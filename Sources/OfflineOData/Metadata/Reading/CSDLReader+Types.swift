extension CSDLReader {
    func readEntityType(namespace: String) throws(ODataError) -> EntityType {
        var type = EntityType(namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): type.name = attribute.value
            case (.none, .baseType): type.baseType = sharedValue(attribute)
            case (.none, .abstract): type.isAbstract = try boolean(attribute)
            case (.none, .openType): type.isOpen = try boolean(attribute)
            case (.none, .hasStream), (.dataServicesMetadata, .hasStream): type.hasStream = try boolean(attribute)
            default: keepForeign(attribute, in: &type.foreignAttributes)
            }
        }
        type.name = try required(type.name, "Name", of: "EntityType")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .key:
                if type.key != nil { throw stream.error("EntityType \(type.name) has more than one Key") }
                type.key = try readKey()
            case .property: type.properties.append(try readProperty())
            case .navigationProperty: type.navigationProperties.append(try readNavigationProperty())
            case .annotation: type.annotations.append(try readAnnotation())
            default: try stream.skipElement()
            }
        }
        noteDuplicateNames(in: type.properties)
        return type
    }

    func readComplexType(namespace: String) throws(ODataError) -> ComplexType {
        var type = ComplexType(namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): type.name = attribute.value
            case (.none, .baseType): type.baseType = sharedValue(attribute)
            case (.none, .abstract): type.isAbstract = try boolean(attribute)
            case (.none, .openType): type.isOpen = try boolean(attribute)
            default: keepForeign(attribute, in: &type.foreignAttributes)
            }
        }
        type.name = try required(type.name, "Name", of: "ComplexType")
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .property: type.properties.append(try readProperty())
            case .navigationProperty: type.navigationProperties.append(try readNavigationProperty())
            case .annotation: type.annotations.append(try readAnnotation())
            case .key: throw stream.error("ComplexType \(type.name) has a Key; only entity types have keys")
            default: try stream.skipElement()
            }
        }
        noteDuplicateNames(in: type.properties)
        return type
    }

    private func readKey() throws(ODataError) -> [PropertyRef] {
        var key: [PropertyRef] = []
        try stream.forEachChild { () throws(ODataError) in
            guard currentElement == .propertyRef else { return try stream.skipElement() }
            var reference = PropertyRef(name: "", sourceLine: SourceLine(stream.line))
            try stream.forEachAttribute { attribute throws(ODataError) in
                guard attribute.namespaceKind == .none else { return }
                switch attribute.csdlName {
                case .name: reference.name = attribute.value
                case .alias: reference.alias = attribute.value
                default: break
                }
            }
            reference.name = try required(reference.name, "Name", of: "PropertyRef")
            key.append(reference)
            try stream.skipElement()
        }
        if key.isEmpty { throw stream.error("Key has no PropertyRef") }
        return key
    }

    func readProperty() throws(ODataError) -> Property {
        var property = Property(name: "", type: TypeReference(name: ""), sourceLine: SourceLine(stream.line))
        var sawType = false
        try stream.forEachAttribute { attribute throws(ODataError) in
            if try applyFacet(attribute, to: &property.facets) { return }
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): property.name = attribute.value
            case (.none, .type):
                property.type = try typeReference(attribute)
                sawType = true
            case (.none, .concurrencyMode): property.isConcurrencyToken = attribute.value == "Fixed"
            default: keepForeign(attribute, in: &property.foreignAttributes)
            }
        }
        property.name = try required(property.name, "Name", of: "Property")
        if !sawType { throw stream.error("Property \(property.name) has no Type attribute") }
        property.annotations = try readAnnotationChildren()
        return property
    }

    private func readNavigationProperty() throws(ODataError) -> NavigationProperty {
        var navigation = NavigationProperty(name: "", type: TypeReference(name: ""), multiplicity: .zeroOrOne,
                                            sourceLine: SourceLine(stream.line))
        var isNullable = true
        var sawType = false
        var relationship: String?
        var fromRole = ""
        var toRole = ""
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): navigation.name = attribute.value
            case (.none, .type):
                navigation.type = try typeReference(attribute)
                sawType = true
            case (.none, .nullable): isNullable = try boolean(attribute)
            case (.none, .partner): navigation.partner = attribute.value
            case (.none, .containsTarget): navigation.containsTarget = try boolean(attribute)
            case (.none, .relationship): relationship = sharedValue(attribute)
            case (.none, .fromRole): fromRole = attribute.value
            case (.none, .toRole): toRole = attribute.value
            default: keepForeign(attribute, in: &navigation.foreignAttributes)
            }
        }
        navigation.name = try required(navigation.name, "Name", of: "NavigationProperty")
        if let relationship {
            guard !relationship.isEmpty, !fromRole.isEmpty, !toRole.isEmpty else {
                throw stream.error("NavigationProperty \(navigation.name) needs Relationship, FromRole and ToRole")
            }
            navigation.association = AssociationLink(relationship: relationship, fromRole: fromRole, toRole: toRole)
        } else if sawType {
            navigation.multiplicity = navigation.type.isCollection ? .many : (isNullable ? .zeroOrOne : .one)
        } else {
            throw stream.error("NavigationProperty \(navigation.name) has neither Type nor Relationship")
        }
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .referentialConstraint:
                var property = ""
                var referenced = ""
                try stream.forEachAttribute { attribute throws(ODataError) in
                    guard attribute.namespaceKind == .none else { return }
                    switch attribute.csdlName {
                    case .property: property = attribute.value
                    case .referencedProperty: referenced = attribute.value
                    default: break
                    }
                }
                guard !property.isEmpty, !referenced.isEmpty else {
                    throw stream.error("ReferentialConstraint needs Property and ReferencedProperty")
                }
                navigation.referentialConstraints.append(ReferentialConstraint(property: property, referencedProperty: referenced))
                try stream.skipElement()
            case .onDelete:
                try stream.forEachAttribute { attribute throws(ODataError) in
                    if attribute.namespaceKind == .none, attribute.csdlName == .action { navigation.onDelete = attribute.value }
                }
                try stream.skipElement()
            case .annotation:
                navigation.annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
        return navigation
    }

    func readEnumType(namespace: String) throws(ODataError) -> EnumType {
        var type = EnumType(namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): type.name = attribute.value
            case (.none, .underlyingType):
                let text = attribute.value
                guard let primitive = PrimitiveType.named(text), primitive.isIntegral else {
                    throw stream.error("UnderlyingType=\"\(text)\" is not an integer type (Edm.Byte, SByte, Int16, Int32, Int64)",
                                       attribute: attribute.name)
                }
                type.underlyingType = primitive
            case (.none, .isFlags): type.isFlags = try boolean(attribute)
            default: keepForeign(attribute, in: &type.foreignAttributes)
            }
        }
        type.name = try required(type.name, "Name", of: "EnumType")
        var nextValue: Int64? = 0
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .member:
                var member = EnumMember(name: "", value: nextValue)
                try stream.forEachAttribute { attribute throws(ODataError) in
                    switch (attribute.namespaceKind, attribute.csdlName) {
                    case (.none, .name): member.name = attribute.value
                    case (.none, .value):
                        let text = attribute.value
                        if let value = parseInt64(text) {
                            member.value = value
                        } else if text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2B }) && text.utf8.count > 1 {
                            // Digits that do not fit in 64 bits (the SAP SDK's test service has one).
                            member.value = nil
                            try tolerate(stream.error("Member Value=\"\(text)\" of EnumType \(type.name) does not fit in 64 bits; the member has no value",
                                                      attribute: attribute.name))
                        } else {
                            throw stream.error("Member Value=\"\(text)\" is not an integer", attribute: attribute.name)
                        }
                    default: keepForeign(attribute, in: &member.foreignAttributes)
                    }
                }
                member.name = try required(member.name, "Name", of: "Member")
                nextValue = member.value.flatMap { value in
                    let (following, overflow) = value.addingReportingOverflow(1)
                    return overflow ? nil : following
                }
                member.annotations = try readAnnotationChildren()
                type.members.append(member)
            case .annotation:
                type.annotations.append(try readAnnotation())
            default:
                try stream.skipElement()
            }
        }
        return type
    }

    func readTypeDefinition(namespace: String) throws(ODataError) -> TypeDefinition {
        var definition = TypeDefinition(namespace: namespace, name: "", underlyingType: TypeReference(name: ""),
                                        facets: Facets(), sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            if try applyFacet(attribute, to: &definition.facets) { return }
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): definition.name = attribute.value
            case (.none, .underlyingType): definition.underlyingType = try typeReference(attribute)
            default: keepForeign(attribute, in: &definition.foreignAttributes)
            }
        }
        definition.name = try required(definition.name, "Name", of: "TypeDefinition")
        if definition.underlyingType.name.isEmpty {
            throw stream.error("TypeDefinition \(definition.name) has no UnderlyingType attribute")
        }
        definition.annotations = try readAnnotationChildren()
        return definition
    }

    func readTerm(namespace: String) throws(ODataError) -> Term {
        var term = Term(namespace: namespace, name: "", type: TypeReference(name: ""), facets: Facets(),
                        sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            if try applyFacet(attribute, to: &term.facets) { return }
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): term.name = attribute.value
            case (.none, .type): term.type = try typeReference(attribute)
            case (.none, .baseTerm): term.baseTerm = attribute.value
            case (.none, .appliesTo): term.appliesTo = attribute.value
            default: keepForeign(attribute, in: &term.foreignAttributes)
            }
        }
        term.name = try required(term.name, "Name", of: "Term")
        if term.type.name.isEmpty { throw stream.error("Term \(term.name) has no Type attribute") }
        term.annotations = try readAnnotationChildren()
        return term
    }

    func readOperation(_ kind: Operation.Kind, namespace: String) throws(ODataError) -> Operation {
        var operation = Operation(kind: kind, namespace: namespace, name: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): operation.name = attribute.value
            case (.none, .isBound): operation.isBound = try boolean(attribute)
            case (.none, .isComposable): operation.isComposable = try boolean(attribute)
            case (.none, .entitySetPath): operation.entitySetPath = attribute.value
            default: keepForeign(attribute, in: &operation.foreignAttributes)
            }
        }
        operation.name = try required(operation.name, "Name", of: kind.rawValue)
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .parameter: operation.parameters.append(try readParameter())
            case .returnType:
                if operation.returnType != nil { throw stream.error("\(kind.rawValue) \(operation.name) has more than one ReturnType") }
                operation.returnType = try readReturnType().returnType
            case .annotation: operation.annotations.append(try readAnnotation())
            default: try stream.skipElement()
            }
        }
        if operation.isBound && operation.parameters.isEmpty {
            throw stream.error("bound \(kind.rawValue) \(operation.name) has no binding parameter")
        }
        return operation
    }

    func readParameter() throws(ODataError) -> Parameter {
        var parameter = Parameter(name: "", type: TypeReference(name: ""), facets: Facets(), sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            if try applyFacet(attribute, to: &parameter.facets) { return }
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .name): parameter.name = attribute.value
            case (.none, .type): parameter.type = try typeReference(attribute)
            case (.none, .mode): parameter.mode = attribute.value
            default: keepForeign(attribute, in: &parameter.foreignAttributes)
            }
        }
        parameter.name = try required(parameter.name, "Name", of: "Parameter")
        if parameter.type.name.isEmpty { throw stream.error("Parameter \(parameter.name) has no Type attribute") }
        parameter.annotations = try readAnnotationChildren()
        return parameter
    }

    /// A `<ReturnType>` element (V4 operations; V3 function imports, which may add `EntitySet`).
    func readReturnType() throws(ODataError) -> (returnType: ReturnType, entitySet: String?) {
        var returnType = ReturnType(type: TypeReference(name: ""), facets: Facets())
        var entitySet: String?
        try stream.forEachAttribute { attribute throws(ODataError) in
            if try applyFacet(attribute, to: &returnType.facets) { return }
            guard attribute.namespaceKind == .none else { return }
            switch attribute.csdlName {
            case .type: returnType.type = try typeReference(attribute)
            case .entitySet: entitySet = attribute.value
            default: break
            }
        }
        if returnType.type.name.isEmpty { throw stream.error("ReturnType has no Type attribute") }
        try stream.skipElement()
        return (returnType, entitySet)
    }

    /// The `Annotation` children of the current element; other children are skipped.
    func readAnnotationChildren() throws(ODataError) -> [Annotation] {
        var annotations: [Annotation] = []
        try stream.forEachChild { () throws(ODataError) in
            if currentElement == .annotation { annotations.append(try readAnnotation()) } else { try stream.skipElement() }
        }
        return annotations
    }
}
