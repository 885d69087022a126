/// The element names of EDMX and CSDL the reader knows. Anything else is skipped.
enum CSDLElement: Sendable {
    case edmx, reference, include, dataServices
    case schema, entityType, complexType, enumType, typeDefinition, term, function, action
    case entityContainer, association, annotations, annotation
    case key, propertyRef, property, navigationProperty, referentialConstraint, onDelete, member
    case parameter, returnType, entitySet, singleton, functionImport, actionImport, associationSet
    case end, navigationPropertyBinding, principal, dependent
    case other

    static let table = ByteNameTable<CSDLElement>([
        ("Edmx", .edmx), ("Reference", .reference), ("Include", .include), ("DataServices", .dataServices),
        ("Schema", .schema), ("EntityType", .entityType), ("ComplexType", .complexType),
        ("EnumType", .enumType), ("TypeDefinition", .typeDefinition), ("Term", .term),
        ("Function", .function), ("Action", .action), ("EntityContainer", .entityContainer),
        ("Association", .association), ("Annotations", .annotations), ("Annotation", .annotation),
        ("Key", .key), ("PropertyRef", .propertyRef), ("Property", .property),
        ("NavigationProperty", .navigationProperty), ("ReferentialConstraint", .referentialConstraint),
        ("OnDelete", .onDelete), ("Member", .member), ("Parameter", .parameter), ("ReturnType", .returnType),
        ("EntitySet", .entitySet), ("Singleton", .singleton), ("FunctionImport", .functionImport),
        ("ActionImport", .actionImport), ("AssociationSet", .associationSet), ("End", .end),
        ("NavigationPropertyBinding", .navigationPropertyBinding), ("Principal", .principal),
        ("Dependent", .dependent),
    ])
}

/// The attribute names the reader models. Others without a namespace are ignored; others with a
/// foreign namespace are kept as data on the element.
enum CSDLAttribute: Sendable {
    case name, type, nullable, maxLength, precision, scale, srid, defaultValue, unicode, fixedLength
    case concurrencyMode, baseType, abstract, openType, hasStream, namespace, alias, partner
    case containsTarget, referencedProperty, property, relationship, fromRole, toRole, role
    case multiplicity, entitySet, entityType, path, target, term, qualifier, isBound, isComposable
    case entitySetPath, function, action, includeInServiceDocument, underlyingType, isFlags, value
    case extends, association, httpMethod, isDefaultEntityContainer, dataServiceVersion, version
    case uri, appliesTo, baseTerm, isSideEffecting, isBindable, mode, returnType
    case other

    static let table = ByteNameTable<CSDLAttribute>([
        ("Name", .name), ("Type", .type), ("Nullable", .nullable), ("MaxLength", .maxLength),
        ("Precision", .precision), ("Scale", .scale), ("SRID", .srid), ("DefaultValue", .defaultValue),
        ("Unicode", .unicode), ("FixedLength", .fixedLength), ("ConcurrencyMode", .concurrencyMode),
        ("BaseType", .baseType), ("Abstract", .abstract), ("OpenType", .openType), ("HasStream", .hasStream),
        ("Namespace", .namespace), ("Alias", .alias), ("Partner", .partner),
        ("ContainsTarget", .containsTarget), ("ReferencedProperty", .referencedProperty),
        ("Property", .property), ("Relationship", .relationship), ("FromRole", .fromRole),
        ("ToRole", .toRole), ("Role", .role), ("Multiplicity", .multiplicity), ("EntitySet", .entitySet),
        ("EntityType", .entityType), ("Path", .path), ("Target", .target), ("Term", .term),
        ("Qualifier", .qualifier), ("IsBound", .isBound), ("IsComposable", .isComposable),
        ("EntitySetPath", .entitySetPath), ("Function", .function), ("Action", .action),
        ("IncludeInServiceDocument", .includeInServiceDocument), ("UnderlyingType", .underlyingType),
        ("IsFlags", .isFlags), ("Value", .value), ("Extends", .extends), ("Association", .association),
        ("HttpMethod", .httpMethod), ("IsDefaultEntityContainer", .isDefaultEntityContainer),
        ("DataServiceVersion", .dataServiceVersion), ("Version", .version), ("Uri", .uri),
        ("AppliesTo", .appliesTo), ("BaseTerm", .baseTerm), ("IsSideEffecting", .isSideEffecting),
        ("IsBindable", .isBindable), ("Mode", .mode), ("ReturnType", .returnType),
    ])
}
