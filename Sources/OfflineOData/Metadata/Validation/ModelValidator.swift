/// The semantic checks after reading, which also finish the model: they replace aliases by
/// namespaces, resolve every type reference, turn V2 associations into navigation, and reject
/// the document at the first fault, naming its line and column.
///
/// Checked: names are declared once; every type reference resolves (`Edm.*` primitives,
/// `Collection(...)`, qualified names via namespace or alias, types of referenced documents);
/// base types exist, are of the same kind and form no cycle; every non-abstract entity type has a
/// key (own or inherited) made of its own properties; navigation properties lead to entity types;
/// partners, referential constraints, navigation bindings, entity sets, singletons, imports and
/// annotation targets resolve.
struct ModelValidator {
    /// What a qualified name declares (the model keeps the table, ``MetadataModel``).
    typealias Declaration = DeclaredElement

    var schemas: [Schema]
    let references: [DocumentReference]
    /// Shared with the ``DetachedCheck``s (its line index locks).
    let locator: SourceColumnLocator
    let options: MetadataReader.Options
    var declarations: [String: Declaration] = [:]
    /// Functions and actions by qualified name (overloads share a name).
    var operationKinds: [String: OperationKinds] = [:]
    /// Bound operations left out because their signature does not resolve.
    var droppedOperations: Set<String> = []
    var aliases: [String: String] = [:]
    /// Some schema or reference takes `Edm` as its alias (set once names are declared).
    var edmIsAnAlias = false
    var ownNamespaces: Set<String> = []
    var externalNamespaces: Set<String> = []
    /// Heads of annotation targets (`NS.Type` of `NS.Type/Property`) already found fine.
    var resolvedTargetHeads: Set<String> = []
    /// The head last found fine (or in ``resolvedTargetHeads``), for runs of groups on one type.
    var lastResolvedTargetHead = ""
    /// Members of structured types, indexed on first use by path checks (bindings, constraints, partners).
    /// A `var` so that a ``DetachedCheck`` gets a cache of its own.
    var memberCache = MemberCache()
    /// Resolved type references by the name as written (qualified names resolve the same anywhere).
    /// A `var` so that a ``DetachedCheck`` gets a cache of its own.
    var resolutionCache = ResolutionCache()
    /// Function and action overloads by qualified name, once operations are resolved.
    let operationIndex = OperationIndex()
    /// Entity set and singleton names by qualified container name, for binding targets.
    var containerMembers: [String: Set<String>] = [:]
    let version: ODataVersion
    /// Tolerated defects, see ``MetadataModel/diagnostics``.
    var diagnostics: [ODataError] = []
    /// The reader's table of declared names, when it saw no name declared twice.
    private let declaredByReader: [String: Declaration]?
    /// The reader's table of functions and actions, when it has one list of faults per schema.
    private let operationsByReader: OperationDeclarationTable?
    /// The reader found no type that names a property twice.
    private let propertyNamesAreUnique: Bool
    /// Whether the checks that only read the model run beside the steps after them
    /// (``DetachedCheck``), for large documents.
    let detachesChecks: Bool

    /// Takes the schemas out of `document`: with the reader's copy gone, each array the checks
    /// change is uniquely owned and changed in place, instead of copied on its first change.
    init(document: inout CSDLDocument, locator: SourceColumnLocator, options: MetadataReader.Options, detachesChecks: Bool = false) {
        self.detachesChecks = detachesChecks
        version = document.version
        declaredByReader = document.declarations
        propertyNamesAreUnique = document.propertyNamesAreUnique
        operationsByReader = document.operations.flatMap { $0.conflicts.count == document.schemas.count ? $0 : nil }
        schemas = document.schemas
        document.schemas = []
        references = document.references
        self.locator = locator
        self.options = options
    }

    /// Runs every check and returns the finished schemas.
    ///
    /// With ``detachesChecks``, two runs of checks that only read the model go on threads of
    /// their own as soon as what they read is final: the annotation targets (which need declared
    /// names only) and the navigation links and keys (which need resolved navigation). Their
    /// faults and diagnostics are taken where they stand in this sequence.
    mutating func validate() throws(ODataError) -> [Schema] {
        try declareNames()
        // Sized once: a type name is resolved once and cached (Microsoft Graph: 1,757 names); each
        // growth would hash every name again.
        resolutionCache.references.reserveCapacity(declarations.count)
        // The annotation check reads the groups and the namespaces only.
        let targets = !detachesChecks ? nil : DetachedCheck(self, schemas: schemas.map {
            Schema(namespace: $0.namespace, alias: $0.alias, annotationGroups: $0.annotationGroups, sourceLine: $0.sourceLine)
        }) { validator throws(ODataError) in try validator.checkAnnotationTargets() }
        let links: DetachedCheck?
        let diagnosticsBeforeLinks: Int
        do {
            try resolveTypeDefinitions()
            try resolveStructuredTypes()
            try resolveAssociationNavigation()
            try resolveNavigationProperties()
            // Member lists are cached from here on: every navigation type is resolved now.
            diagnosticsBeforeLinks = diagnostics.count
            if detachesChecks {
                links = DetachedCheck(self) { validator throws(ODataError) in
                    try validator.checkNavigationLinks()
                    try validator.checkKeys()
                }
            } else {
                links = nil
                try checkNavigationLinks()
                try checkKeys()
            }
        } catch {
            _ = targets?.finish()
            throw error
        }
        let later: Result<Void, ODataError> = Result { () throws(ODataError) in
            try resolveOperations()
            try resolveContainers()
            try bindAssociationSets()
            try checkBindings()
        }
        if let links {
            let found = links.finish()
            if let fault = found.fault {
                _ = targets?.finish()
                throw fault
            }
            diagnostics.insert(contentsOf: found.diagnostics, at: min(diagnosticsBeforeLinks, diagnostics.count))
        }
        if case .failure(let fault) = later {
            _ = targets?.finish()
            throw fault
        }
        if let targets {
            let found = targets.finish()
            diagnostics += found.diagnostics
            if let fault = found.fault { throw fault }
        } else {
            try checkAnnotationTargets()
        }
        return schemas
    }

    // MARK: Errors

    /// Records a defect that leaves the rest of the model usable; an error in strict mode.
    mutating func tolerate(_ defect: ODataError) throws(ODataError) {
        if options.isStrict { throw defect }
        diagnostics.append(defect)
    }

    /// An error at a declared element (or one of its attributes), with line and column.
    func fault(_ message: String, at line: SourceLine, element: String, attribute: String? = nil) -> ODataError {
        ModelValidator.fault(message, at: line, element: element, attribute: attribute, locator: locator)
    }

    /// The same, for the reader's faults that validation tolerates later (``OperationDeclarationTable``).
    static func fault(_ message: String, at line: SourceLine, element: String, attribute: String?,
                      locator: SourceColumnLocator) -> ODataError {
        guard line.line > 0 else { return ODataError(.metadata, message) }
        let place = locator.locate(line: line.line, element: element, attribute: attribute)
        return ODataError(.metadata, message, line: place.line, column: place.column)
    }

    // MARK: Names

    /// Every namespace, alias and qualified name of the document declared once (a name declared
    /// twice is an error), and the operations' kinds recorded.
    private mutating func declareNames() throws(ODataError) {
        declareReferencedNamespaces()
        // The reader's table holds what the loop below would declare, unless a name is declared
        // twice: then the loop declares every name and names the duplicate in its own order.
        let declaresNames = declaredByReader == nil
        if let declaredByReader {
            declarations = declaredByReader
        } else {
            // Sized once: Graph declares thousands of names, and each growth rehashes every key.
            declarations.reserveCapacity(schemas.reduce(0) { count, schema in
                count + schema.entityTypes.count + schema.complexTypes.count + schema.enumTypes.count + schema.typeDefinitions.count
                    + schema.terms.count + schema.entityContainers.count + schema.associations.count
            })
        }
        var operationNames: [String] = []
        if let operationsByReader {
            // The reader declared the operations as it went; their faults are tolerated here, in order.
            operationKinds = operationsByReader.kinds
            operationNames = operationsByReader.names
        } else {
            operationKinds.reserveCapacity(schemas.reduce(0) { $0 + $1.operations.count })
            operationNames.reserveCapacity(schemas.reduce(0) { $0 + $1.operations.count })
        }
        for (schemaIndex, schema) in schemas.enumerated() {
            try declareNamespace(of: schema)
            if declaresNames { try declareTypes(of: schema, at: schemaIndex) }
            if let operationsByReader, schemaIndex < operationsByReader.conflicts.count {
                for conflict in operationsByReader.conflicts[schemaIndex] { try tolerate(conflict) }
            } else {
                try declareOperations(of: schema, names: &operationNames)
            }
        }
        edmIsAnAlias = aliases["Edm"] != nil
        try checkOperationsBesideTypes(operationNames)
    }

    /// The namespaces (and their aliases) that references include.
    private mutating func declareReferencedNamespaces() {
        for reference in references {
            for include in reference.includes {
                externalNamespaces.insert(include.namespace)
                if let alias = include.alias { aliases[alias] = include.namespace }
            }
        }
    }

    /// A schema's namespace, declared by no other schema, and its alias, meaning one namespace.
    private mutating func declareNamespace(of schema: Schema) throws(ODataError) {
        if !ownNamespaces.insert(schema.namespace).inserted {
            throw fault("the namespace \(schema.namespace) is declared by two schemas", at: schema.sourceLine,
                        element: "Schema", attribute: "Namespace")
        }
        if let alias = schema.alias {
            if let existing = aliases[alias], existing != schema.namespace {
                throw fault("the alias \(alias) is used for both \(existing) and \(schema.namespace)", at: schema.sourceLine,
                            element: "Schema", attribute: "Alias")
            }
            aliases[alias] = schema.namespace
        }
    }

    /// The qualified names of a schema's types, terms, containers and associations.
    private mutating func declareTypes(of schema: Schema, at schemaIndex: Int) throws(ODataError) {
        let namespace = schema.namespace
        for (index, type) in schema.entityTypes.enumerated() {
            try declare(namespace + "." + type.name, .entityType(schema: schemaIndex, index: index), type.sourceLine, "EntityType")
        }
        for (index, type) in schema.complexTypes.enumerated() {
            try declare(namespace + "." + type.name, .complexType(schema: schemaIndex, index: index), type.sourceLine, "ComplexType")
        }
        for (index, type) in schema.enumTypes.enumerated() {
            try declare(namespace + "." + type.name, .enumType(schema: schemaIndex, index: index), type.sourceLine, "EnumType")
        }
        for (index, type) in schema.typeDefinitions.enumerated() {
            try declare(namespace + "." + type.name, .typeDefinition(schema: schemaIndex, index: index), type.sourceLine, "TypeDefinition")
        }
        for (index, term) in schema.terms.enumerated() {
            try declare(namespace + "." + term.name, .term(schema: schemaIndex, index: index), term.sourceLine, "Term")
        }
        for (index, container) in schema.entityContainers.enumerated() {
            try declare(namespace + "." + container.name, .entityContainer(schema: schemaIndex, index: index),
                        container.sourceLine, "EntityContainer")
        }
        for (index, association) in schema.associations.enumerated() {
            try declare(namespace + "." + association.name, .association(schema: schemaIndex, index: index),
                        association.sourceLine, "Association")
        }
    }

    /// Each operation's kinds under its qualified name (appended to `names`, in order).
    private mutating func declareOperations(of schema: Schema, names operationNames: inout [String]) throws(ODataError) {
        for operation in schema.operations {
            let name = schema.namespace + "." + operation.name
            operationNames.append(name)
            var kinds = operationKinds[name] ?? OperationKinds()
            if kinds.isEmpty || kinds.contains(operation.kind) {
                // First declaration, or an overload.
            } else {
                // A function and an action of the same name (Microsoft Graph has `browse`): both are
                // kept, told apart by kind wherever they are looked up.
                try tolerate(fault("\(name) is declared both as a function and as an action", at: operation.sourceLine,
                                   element: operation.kind.rawValue, attribute: "Name"))
            }
            kinds.insert(operation.kind)
            operationKinds[name] = kinds
        }
    }

    /// Operations live beside types in a namespace; Microsoft Graph has a complex type and a
    /// function both called `image`. Lookups are by kind, so both are kept, as a tolerated defect.
    /// `operationNames` are the names ``declareOperations(of:names:)`` built, in the same order.
    private mutating func checkOperationsBesideTypes(_ operationNames: [String]) throws(ODataError) {
        var nameIndex = 0
        for schema in schemas {
            for operation in schema.operations {
                defer { nameIndex += 1 }
                guard nameIndex < operationNames.count, declarations[operationNames[nameIndex]] != nil else { continue }
                try tolerate(fault("\(operation.qualifiedName) is declared both as a type (or container) and as a \(operation.kind.rawValue.lowercased())",
                                   at: operation.sourceLine, element: operation.kind.rawValue, attribute: "Name"))
            }
        }
    }

    private mutating func declare(_ name: String, _ declaration: Declaration, _ line: SourceLine, _ element: String) throws(ODataError) {
        if declarations[name] != nil {
            throw fault("\(name) is declared twice", at: line, element: element, attribute: "Name")
        }
        declarations[name] = declaration
    }

    /// A name as written, qualified: a leading alias replaced by its namespace; a name without
    /// any namespace taken to be in `namespace` (some V2 services write `ReturnType="Product"`).
    func qualify(_ name: String, in namespace: String) -> String {
        guard let prefix = QualifiedNames.prefix(of: name) else { return namespace + "." + name }
        if let aliased = aliases[String(prefix)] { return aliased + QualifiedNames.suffix(of: name) }
        return name
    }

    /// The namespace part of a qualified name.
    func namespace(of qualifiedName: String) -> String {
        QualifiedNames.prefix(of: qualifiedName).map(String.init) ?? ""
    }

    // MARK: Type references

    /// Resolves a type reference in place, or fails naming the element and attribute it came from.
    /// `what` names the referring element in the message; it is only built for an error.
    func resolve(_ reference: inout TypeReference, in namespace: String, what: @autoclosure () -> String, at line: SourceLine,
                 element: String, attribute: String = "Type") throws(ODataError) {
        // The reader resolves `Edm` primitives already (the same in every schema, unless a
        // schema takes `Edm` as its alias, which CSDL forbids but nothing else here rejects).
        if case .primitive = reference.kind, !edmIsAnAlias { return }
        let written = reference.name
        let isQualified = QualifiedNames.contains(written, UInt8(ascii: "."))
        if isQualified, let known = resolutionCache.references[written] {
            reference.name = known.name
            reference.kind = known.kind
            return
        }
        try resolveUncached(&reference, in: namespace, what: what, at: line, element: element, attribute: attribute)
        if isQualified { resolutionCache.references[written] = (reference.name, reference.kind) }
    }

    /// `what` is only called for a message.
    private func resolveUncached(_ reference: inout TypeReference, in namespace: String, what: () -> String, at line: SourceLine,
                                 element: String, attribute: String) throws(ODataError) {
        var name = qualify(reference.name, in: namespace)
        if !QualifiedNames.contains(reference.name, UInt8(ascii: ".")), declarations[name] == nil {
            // An unqualified name (pyodata's SAP example writes `ReturnType="TemperatureMeasurement"`
            // in a schema other than the type's): take the one schema that declares it.
            let candidates = ownNamespaces.map { $0 + "." + reference.name }.filter { declarations[$0] != nil }
            if candidates.count == 1, let only = candidates.first { name = only }
        }
        reference.name = name
        if QualifiedNames.prefix(of: name) == "Edm" {
            if let primitive = PrimitiveType.named(name) {
                reference.kind = .primitive(primitive)
            } else if let abstract = AbstractType(rawValue: name) {
                reference.kind = .abstract(abstract)
            } else if options.acceptsUnknownEdmTypes {
                reference.kind = .unknownEdmType
            } else {
                throw fault("\(what()) has the type \(name), which is not an Edm primitive type", at: line, element: element, attribute: attribute)
            }
            return
        }
        switch declarations[name] {
        case .entityType: reference.kind = .entity
        case .complexType: reference.kind = .complex
        case .enumType: reference.kind = .enumeration
        case .typeDefinition(let schema, let index):
            let underlying = schemas[schema].typeDefinitions[index].underlyingType.primitiveType ?? .string
            reference.kind = .definition(underlying: underlying)
        case nil where externalNamespaces.contains(self.namespace(of: name)):
            reference.kind = .external
        case nil:
            throw fault("\(what()) has the type \(name), which is not declared in the document", at: line,
                        element: element, attribute: attribute)
        default:
            throw fault("\(what()) has the type \(name), which is not a type", at: line, element: element, attribute: attribute)
        }
    }

    private mutating func resolveTypeDefinitions() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            for t in schemas[s].typeDefinitions.indices {
                var definition = schemas[s].typeDefinitions[t]
                let what = "TypeDefinition \(definition.name)"
                let name = qualify(definition.underlyingType.name, in: namespace)
                guard let primitive = PrimitiveType.named(name), !definition.underlyingType.isCollection else {
                    throw fault("\(what) has the UnderlyingType \(definition.underlyingType), which is not an Edm primitive type",
                                at: definition.sourceLine, element: "TypeDefinition", attribute: "UnderlyingType")
                }
                definition.underlyingType = TypeReference(name: name, kind: .primitive(primitive))
                schemas[s].typeDefinitions[t] = definition
            }
        }
    }

    private mutating func resolveStructuredTypes() throws(ODataError) {
        for s in schemas.indices {
            let namespace = schemas[s].namespace
            // Taken out and put back, so that changes are made in place rather than on copies.
            var entityTypes = schemas[s].entityTypes
            schemas[s].entityTypes = []
            for t in entityTypes.indices {
                if let base = entityTypes[t].baseType {
                    let name = qualify(base, in: namespace)
                    guard case .entityType = declarations[name] else {
                        throw fault("EntityType \(entityTypes[t].name) has the BaseType \(name), which is not an entity type of the document",
                                    at: entityTypes[t].sourceLine, element: "EntityType", attribute: "BaseType")
                    }
                    entityTypes[t].baseType = name
                }
                let name = entityTypes[t].name
                try resolveProperties(&entityTypes[t].properties, in: namespace, owner: "EntityType \(name)")
            }
            schemas[s].entityTypes = entityTypes
            var complexTypes = schemas[s].complexTypes
            schemas[s].complexTypes = []
            for t in complexTypes.indices {
                if let base = complexTypes[t].baseType {
                    let name = qualify(base, in: namespace)
                    guard case .complexType = declarations[name] else {
                        throw fault("ComplexType \(complexTypes[t].name) has the BaseType \(name), which is not a complex type of the document",
                                    at: complexTypes[t].sourceLine, element: "ComplexType", attribute: "BaseType")
                    }
                    complexTypes[t].baseType = name
                }
                let name = complexTypes[t].name
                try resolveProperties(&complexTypes[t].properties, in: namespace, owner: "ComplexType \(name)")
            }
            schemas[s].complexTypes = complexTypes
            for t in schemas[s].terms.indices {
                var term = schemas[s].terms[t]
                do {
                    try resolve(&term.type, in: namespace, what: "Term \(term.name)", at: term.sourceLine, element: "Term")
                } catch {
                    // Terms only describe annotations, which the engine keeps uninterpreted; Olingo's
                    // TripPin copy types one with an alias it never declares. The type stays unresolved.
                    try tolerate(error)
                }
                schemas[s].terms[t] = term
            }
        }
        try checkInheritanceCycles()
    }

    /// `owner` names the type in messages; it is only built for one.
    private func resolveProperties(_ properties: inout [Property], in namespace: String,
                                   owner: @autoclosure () -> String) throws(ODataError) {
        // The reader found no duplicate in any type (the usual case), or each type is checked
        // here: small types (most) pairwise; a set only pays off for large ones.
        let checksDuplicates = !propertyNamesAreUnique
        let usesSet = checksDuplicates && properties.count > 16
        var seen: Set<String> = usesSet ? Set(minimumCapacity: properties.count) : []
        for p in properties.indices {
            // The name and line only, not a copy of the whole property (its every string retained).
            let name = properties[p].name
            let line = properties[p].sourceLine
            let isDuplicate = !checksDuplicates ? false
                : usesSet ? !seen.insert(name).inserted
                : properties[..<p].contains { $0.name == name }
            if isDuplicate {
                throw fault("\(owner()) declares the property \(name) twice", at: line, element: "Property", attribute: "Name")
            }
            try resolve(&properties[p].type, in: namespace, what: "Property \(name) of \(owner())", at: line, element: "Property")
        }
    }

    private func checkInheritanceCycles() throws(ODataError) {
        for schema in schemas {
            for type in schema.entityTypes where type.baseType != nil && !reachesRoot(from: type.baseType) {
                var seen: Set<String> = [schema.namespace + "." + type.name]
                var current = type
                while let base = current.baseType, let next = entityType(named: base) {
                    if !seen.insert(base).inserted {
                        throw fault("EntityType \(type.name) inherits from itself (through \(base))", at: type.sourceLine,
                                    element: "EntityType", attribute: "BaseType")
                    }
                    current = next
                }
            }
            for type in schema.complexTypes where type.baseType != nil && !reachesRoot(from: type.baseType) {
                var seen: Set<String> = [schema.namespace + "." + type.name]
                var current = type
                while let base = current.baseType, let next = complexType(named: base) {
                    if !seen.insert(base).inserted {
                        throw fault("ComplexType \(type.name) inherits from itself (through \(base))", at: type.sourceLine,
                                    element: "ComplexType", attribute: "BaseType")
                    }
                    current = next
                }
            }
        }
    }

    /// Whether following base types from `base` ends (at a type without a base, or at a name that
    /// is no structured type) within as many steps as there are declarations: then there is no
    /// cycle, which is the common case, found without copying types or building sets of names.
    private func reachesRoot(from base: String?) -> Bool {
        var current = base
        for _ in 0...declarations.count {
            guard let name = current else { return true }
            switch declarations[name] {
            case .entityType(let schema, let index):
                guard index < schemas[schema].entityTypes.count else { return true }
                current = schemas[schema].entityTypes[index].baseType
            case .complexType(let schema, let index):
                guard index < schemas[schema].complexTypes.count else { return true }
                current = schemas[schema].complexTypes[index].baseType
            default:
                return true
            }
        }
        return false
    }

    // MARK: Lookups (valid once names are declared)

    func entityType(named qualifiedName: String) -> EntityType? {
        guard case .entityType(let schema, let index) = declarations[qualifiedName] else { return nil }
        return schemas[schema].entityTypes[index]
    }

    func complexType(named qualifiedName: String) -> ComplexType? {
        guard case .complexType(let schema, let index) = declarations[qualifiedName] else { return nil }
        return schemas[schema].complexTypes[index]
    }

    /// The entity type and its base types, nearest first (finite even for cycles).
    func hierarchy(of type: EntityType) -> [EntityType] {
        var chain = [type]
        var seen: Set<String> = [type.qualifiedName]
        var current = type
        while let base = current.baseType, let next = entityType(named: base), seen.insert(base).inserted {
            chain.append(next)
            current = next
        }
        return chain
    }

    func hierarchy(of type: ComplexType) -> [ComplexType] {
        var chain = [type]
        var seen: Set<String> = [type.qualifiedName]
        var current = type
        while let base = current.baseType, let next = complexType(named: base), seen.insert(base).inserted {
            chain.append(next)
            current = next
        }
        return chain
    }

    /// A member of a structured type: whether it is a navigation property, and its type's name.
    struct MemberInfo {
        var isNavigation: Bool
        var typeName: String
    }

    /// The own members of a structured type, and its base type. A class: the cache hands out a
    /// reference per lookup instead of copying a dictionary and a name.
    final class TypeMembers {
        let baseType: String?
        let members: [String: MemberInfo]

        init(baseType: String?, members: [String: MemberInfo]) {
            self.baseType = baseType
            self.members = members
        }
    }

    /// The own members of a type (entity or complex), from the cache or indexed now.
    private func ownMembers(of typeName: String) -> TypeMembers? {
        if let cached = memberCache.types[typeName] { return cached }
        let result: TypeMembers
        switch declarations[typeName] {
        case .entityType(let schema, let index):
            guard index < schemas[schema].entityTypes.count else { return nil }
            let type = schemas[schema].entityTypes[index]
            result = TypeMembers(baseType: type.baseType,
                                 members: Self.memberIndex(type.properties, type.navigationProperties))
        case .complexType(let schema, let index):
            guard index < schemas[schema].complexTypes.count else { return nil }
            let type = schemas[schema].complexTypes[index]
            result = TypeMembers(baseType: type.baseType,
                                 members: Self.memberIndex(type.properties, type.navigationProperties))
        default:
            return nil
        }
        memberCache.types[typeName] = result
        return result
    }

    /// Members by name, reading each property's name and type in place (no copy of a whole property).
    private static func memberIndex(_ properties: [Property], _ navigation: [NavigationProperty]) -> [String: MemberInfo] {
        var members: [String: MemberInfo] = Dictionary(minimumCapacity: properties.count + navigation.count)
        for p in properties.indices {
            members[properties[p].name] = MemberInfo(isNavigation: false, typeName: properties[p].type.name)
        }
        for n in navigation.indices {
            members[navigation[n].name] = MemberInfo(isNavigation: true, typeName: navigation[n].type.name)
        }
        return members
    }

    /// Whether the name is an entity or complex type of the document.
    func isStructuredType(_ name: String) -> Bool {
        switch declarations[name] {
        case .entityType, .complexType: true
        default: false
        }
    }

    /// A member of a type or of one of its base types.
    func member(_ name: String, ofType typeName: String) -> MemberInfo? {
        var current = typeName
        // Bounded: cycles are rejected before the index is used, but the walk stays finite anyway.
        for _ in 0..<256 {
            guard let type = ownMembers(of: current) else { return nil }
            if let found = type.members[name] { return found }
            guard let base = type.baseType else { return nil }
            current = base
        }
        return nil
    }
}

/// Whether a qualified name declares functions, actions or both: two flags where a `Set` would
/// allocate storage per name (Microsoft Graph declares thousands of operations).
struct OperationKinds {
    private var function = false
    private var action = false

    var isEmpty: Bool { !function && !action }

    func contains(_ kind: Operation.Kind) -> Bool { kind == .function ? function : action }

    mutating func insert(_ kind: Operation.Kind) {
        if kind == .function { function = true } else { action = true }
    }
}

/// Per-type member lists, built on demand once navigation types are resolved. A class so that
/// lookups from non-mutating checks can fill it; used by one validation on one thread.
final class MemberCache {
    var types: [String: ModelValidator.TypeMembers] = [:]
}

/// Type references resolved so far, by the qualified name as written.
final class ResolutionCache {
    var references: [String: (name: String, kind: TypeReference.Kind)] = [:]
}

/// Operations by qualified name, filled before the containers are checked.
final class OperationIndex {
    var overloads: [String: [Operation]] = [:]
}
