/// The model of one `$metadata` document: what the stores, the SQL mapping and the URL binder
/// look names up in.
///
/// A model only exists fully read and validated (``MetadataReader/read(_:options:)``): every type
/// reference in it resolves, every entity type has a key, and every navigation target and binding
/// resolves. It is immutable and can be shared between threads.
///
/// Names are qualified with their schema's namespace (`RMTSAMPLEFLIGHT.Travelagency`); lookups
/// also accept the schema's alias in place of the namespace.
public final class MetadataModel: Sendable {
    /// The protocol version of the document.
    public let version: ODataVersion
    /// The `Version` attribute of `edmx:Edmx` as written (`1.0`, `4.0`, `4.01`).
    public let edmxVersion: String
    public let schemas: [Schema]
    public let references: [DocumentReference]
    /// Defects the reader tolerated (only when ``MetadataReader/Options/isStrict`` is off), each
    /// with its line and column. Real services publish them: an association end naming an entity
    /// set instead of a type, a binding to an entity set that does not exist, an enum value beyond
    /// 64 bits, a key naming no property. The model holds nothing that depends on a defect (the
    /// binding is dropped, the value is nil, the key property is missing from
    /// ``keyProperties(of:)``), so everything else in it is resolved as usual.
    public let diagnostics: [ODataError]

    private let aliases: [String: String]
    /// Every declared type, term, container and association by qualified name, with its place
    /// in ``schemas`` (as validation found them).
    private let declarations: [String: DeclaredElement]
    private let operationsByName: [String: [Operation]]
    /// The default container: the only one, or the one marked default, or the first.
    public let entityContainer: EntityContainer?

    /// `declarations` and `operations` are validation's tables of the same `schemas`: every
    /// declared name with its place, and every operation's overloads by qualified name.
    init(version: ODataVersion, edmxVersion: String, schemas: [Schema], references: [DocumentReference],
         diagnostics: [ODataError] = [], declarations: [String: DeclaredElement], operations: [String: [Operation]]) {
        self.diagnostics = diagnostics
        self.version = version
        self.edmxVersion = edmxVersion
        self.schemas = schemas
        self.references = references
        self.declarations = declarations
        operationsByName = operations
        var aliases: [String: String] = [:]
        var defaultContainer: EntityContainer?
        for reference in references {
            for include in reference.includes { if let alias = include.alias { aliases[alias] = include.namespace } }
        }
        for schema in schemas {
            if let alias = schema.alias { aliases[alias] = schema.namespace }
            for container in schema.entityContainers
            where defaultContainer == nil || (container.isDefault && defaultContainer?.isDefault != true) {
                defaultContainer = container
            }
        }
        self.aliases = aliases
        entityContainer = defaultContainer
    }

    // MARK: Names

    /// Replaces a leading alias by its namespace (`self.Product` → `NS.Product`); other names unchanged.
    public func qualifiedName(_ name: String) -> String {
        // Most documents declare no alias: then no name needs splitting (binding asks this for
        // every type it looks up).
        if aliases.isEmpty { return name }
        guard let prefix = QualifiedNames.prefix(of: name), let namespace = aliases[String(prefix)] else { return name }
        return namespace + QualifiedNames.suffix(of: name)
    }

    /// The namespaces declared by this document's schemas.
    public var namespaces: [String] { schemas.map(\.namespace) }

    // MARK: Types

    /// The element `name` declares, when it is of `kind`, from its schema's array of that kind.
    private func declared<Element>(_ name: String, as kind: DeclaredElement.Kind, in list: (Schema) -> [Element]) -> Element? {
        guard let declared = declarations[qualifiedName(name)], declared.kind == kind,
              let schema = schemas.element(at: declared.place.schema) else { return nil }
        return list(schema).element(at: declared.place.index)
    }

    public func entityType(named name: String) -> EntityType? { declared(name, as: .entityType) { $0.entityTypes } }

    /// The entity type named `name` and its qualified name, the table's own key (the binder
    /// needs both; `EntityType.qualifiedName` builds a new string at every call).
    func entityTypeAndQualifiedName(named name: String) -> (type: EntityType, qualifiedName: String)? {
        guard let found = declarations.index(forKey: qualifiedName(name)) else { return nil }
        let (qualifiedName, declared) = declarations[found]
        guard declared.kind == .entityType,
              let type = schemas.element(at: declared.place.schema)?.entityTypes.element(at: declared.place.index) else { return nil }
        return (type, qualifiedName)
    }

    public func complexType(named name: String) -> ComplexType? { declared(name, as: .complexType) { $0.complexTypes } }
    public func enumType(named name: String) -> EnumType? { declared(name, as: .enumType) { $0.enumTypes } }
    public func typeDefinition(named name: String) -> TypeDefinition? { declared(name, as: .typeDefinition) { $0.typeDefinitions } }
    public func term(named name: String) -> Term? { declared(name, as: .term) { $0.terms } }
    public func association(named name: String) -> Association? { declared(name, as: .association) { $0.associations } }

    /// All overloads of a V4 function or action.
    public func operations(named name: String) -> [Operation] { operationsByName[qualifiedName(name)] ?? [] }

    /// The entity type followed by its base types, nearest first. Stops at a cycle (validation
    /// rejects cycles, this only keeps the walk finite).
    public func typeHierarchy(of type: EntityType) -> [EntityType] {
        guard type.baseType != nil else { return [type] }
        var chain = [type]
        var seen: Set<String> = [type.qualifiedName]
        var current = type
        while let baseName = current.baseType, let base = entityType(named: baseName), seen.insert(base.qualifiedName).inserted {
            chain.append(base)
            current = base
        }
        return chain
    }

    /// The complex type followed by its base types, nearest first.
    public func typeHierarchy(of type: ComplexType) -> [ComplexType] {
        var chain = [type]
        var seen: Set<String> = [type.qualifiedName]
        var current = type
        while let baseName = current.baseType, let base = complexType(named: baseName), seen.insert(base.qualifiedName).inserted {
            chain.append(base)
            current = base
        }
        return chain
    }

    /// Whether `type` is `ancestor` or derives from it.
    public func entityType(_ type: EntityType, isOrDerivesFrom ancestor: String) -> Bool {
        let ancestorName = qualifiedName(ancestor)
        return typeHierarchy(of: type).contains { $0.qualifiedName == ancestorName }
    }

    /// The effective key: the `PropertyRef`s of the nearest type in the hierarchy that declares a key.
    public func key(of type: EntityType) -> [PropertyRef] {
        typeHierarchy(of: type).lazy.compactMap(\.key).first ?? []
    }

    /// The key's properties (for simple, non-path `PropertyRef`s), in key order.
    public func keyProperties(of type: EntityType) -> [Property] {
        key(of: type).compactMap { property($0.name, of: type) }
    }

    /// All structural properties, inherited ones first.
    public func properties(of type: EntityType) -> [Property] {
        typeHierarchy(of: type).reversed().flatMap(\.properties)
    }

    /// All navigation properties, inherited ones first.
    public func navigationProperties(of type: EntityType) -> [NavigationProperty] {
        typeHierarchy(of: type).reversed().flatMap(\.navigationProperties)
    }

    /// A structural property, own or inherited.
    public func property(_ name: String, of type: EntityType) -> Property? {
        // The type's own properties first: binding asks this for every property a URL names.
        if let own = type.property(named: name) { return own }
        guard type.baseType != nil else { return nil }
        for candidate in typeHierarchy(of: type).dropFirst() { if let found = candidate.property(named: name) { return found } }
        return nil
    }

    /// A navigation property, own or inherited.
    public func navigationProperty(_ name: String, of type: EntityType) -> NavigationProperty? {
        for candidate in typeHierarchy(of: type) {
            if let found = candidate.navigationProperty(named: name) { return found }
        }
        return nil
    }

    // MARK: Container

    /// All containers, by qualified name.
    public func entityContainer(named name: String) -> EntityContainer? {
        declared(name, as: .entityContainer) { $0.entityContainers }
    }

    public func entitySet(named name: String) -> EntitySet? { entityContainer?.entitySet(named: name) }
    public func singleton(named name: String) -> Singleton? { entityContainer?.singleton(named: name) }
    public func functionImport(named name: String) -> FunctionImport? { entityContainer?.functionImport(named: name) }
    public func actionImport(named name: String) -> ActionImport? { entityContainer?.actionImport(named: name) }

    /// The entity type of an entity set of the default container.
    public func entityType(ofEntitySet name: String) -> EntityType? {
        entitySet(named: name).flatMap { entityType(named: $0.entityType) }
    }

    // MARK: Counts

    /// How many of each kind of element the document declares (all schemas, all containers).
    public var counts: ElementCounts {
        var counts = ElementCounts()
        for schema in schemas {
            counts.entityTypes += schema.entityTypes.count
            counts.complexTypes += schema.complexTypes.count
            counts.enumTypes += schema.enumTypes.count
            counts.typeDefinitions += schema.typeDefinitions.count
            counts.functions += schema.operations.count { $0.kind == .function }
            counts.actions += schema.operations.count { $0.kind == .action }
            counts.associations += schema.associations.count
            for container in schema.entityContainers {
                counts.entitySets += container.entitySets.count
                counts.singletons += container.singletons.count
                counts.functionImports += container.functionImports.count
                counts.actionImports += container.actionImports.count
            }
        }
        return counts
    }
}

/// Element counts of a model, for summaries (`offline-odata metadata`) and tests.
public struct ElementCounts: Sendable, Hashable {
    public var entityTypes = 0
    public var complexTypes = 0
    public var enumTypes = 0
    public var typeDefinitions = 0
    public var entitySets = 0
    public var singletons = 0
    public var functionImports = 0
    public var actionImports = 0
    /// Function elements, overloads counted one by one.
    public var functions = 0
    /// Action elements, overloads counted one by one.
    public var actions = 0
    public var associations = 0
}
