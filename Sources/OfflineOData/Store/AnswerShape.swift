/// What an answer holds: a collection of entities of a set, one entity, a property, a count, a raw
/// value. It is decided where the answer is made, from the bound request (offline) or the resolved
/// one (online), so callers (C, C++, Python) type an answer without reading its URL again.
public struct AnswerShape: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Entities: an entity set, a to-many navigation, a function returning entities.
        case collection
        /// One entity: by key, a to-one navigation, a singleton, a create's answer.
        case entity
        /// A property of one entity, in the dialect's JSON wrapper.
        case property
        /// `/$count` of a collection, as text.
        case count
        /// A property's raw value (`/$value`), as text; or a media entity's stream (`Set(key)/$value`,
        /// ``propertyType`` `Edm.Stream`), as its bytes with the stream's content type.
        case value
        /// `$metadata` (XML).
        case metadata
        /// Anything else: the service document, `$batch`, an operation that returns no entities,
        /// a next link's page (its URL is the service's, not parsed again) or a URL nothing binds.
        case other
    }

    public var kind: Kind
    /// The entity set the entities belong to (the target of the navigation); nil when unknown.
    public var entitySet: String?
    /// The entities' type, qualified (a cast's type where the URL casts); nil when unknown.
    public var entityType: String?
    /// For a property or `$value`: the property's path, `/` between the segments of a complex one.
    public var property: String?
    /// For a property or `$value`: its EDM type as `$metadata` writes it (`Edm.String`,
    /// `Collection(Edm.Int32)`, a complex type's qualified name).
    public var propertyType: String?

    public init(kind: Kind, entitySet: String? = nil, entityType: String? = nil, property: String? = nil,
                propertyType: String? = nil) {
        self.kind = kind
        self.entitySet = entitySet
        self.entityType = entityType
        self.property = property
        self.propertyType = propertyType
    }

    /// Nothing known about the answer.
    public static let other = AnswerShape(kind: .other)
}

extension AnswerShape {
    /// The shape of the answer to `bound` (a read; a write answers the entity it addresses).
    init(_ bound: BoundRequest, model: MetadataModel) {
        let set = bound.path?.entitySet, type = bound.path?.entityType
        switch bound.target {
        case .collection: self.init(kind: .collection, entitySet: set, entityType: type)
        case .entity: self.init(kind: .entity, entitySet: set, entityType: type)
        case .count: self.init(kind: .count, entitySet: set, entityType: type)
        case .property(let path, let rawValue):
            self.init(kind: rawValue ? .value : .property, entitySet: set, entityType: type, property: path.joined(separator: "/"),
                      propertyType: type.flatMap { Self.propertyType(path, of: $0, model: model) })
        case .mediaValue: self.init(kind: .value, entitySet: set, entityType: type, propertyType: "Edm.Stream")
        case .streamProperty(let name):
            self.init(kind: .value, entitySet: set, entityType: type, property: name, propertyType: "Edm.Stream")
        case .metadata: self.init(kind: .metadata)
        case .operation(let name): self = Self.operation(name, model: model)
        case .serviceDocument, .batch: self = .other
        }
    }

    /// The shape of the answer to `request` as resolved: from its bound form when it bound, else
    /// from the resource it addresses (the set alone). A create (POST to a collection) answers
    /// one entity; an update or a delete, the entity it addresses.
    init(answering request: ResolvedRequest, model: MetadataModel) {
        self.init(resolved: request, model: model)
        if request.method == .post, kind == .collection { kind = .entity }
    }

    private init(resolved request: ResolvedRequest, model: MetadataModel) {
        if case .success(let bound) = request.binding {
            self.init(bound, model: model)
            return
        }
        let set = request.resource.entitySet
        let type = set.flatMap { model.entityType(ofEntitySet: $0)?.qualifiedName }
        switch request.resource {
        case .collection: self.init(kind: .collection, entitySet: set, entityType: type)
        case .entity: self.init(kind: .entity, entitySet: set, entityType: type)
        case .count: self.init(kind: .count, entitySet: set, entityType: type)
        case .property: self.init(kind: .property, entitySet: set, entityType: type)
        case .metadata: self.init(kind: .metadata)
        case .operation(let operation): self = Self.operation(operation.name, model: model)
        default: self = .other
        }
    }

    /// The answer of an operation: entities of its return type, when it returns entities.
    private static func operation(_ name: String, model: MetadataModel) -> AnswerShape {
        var returned: TypeReference?
        var set: String?
        if let function = model.functionImport(named: name) {
            set = function.entitySet
            returned = function.returnType
                ?? function.function.flatMap { model.operations(named: $0).first { !$0.isBound }?.returnType?.type }
        } else if let action = model.actionImport(named: name) {
            set = action.entitySet
            returned = model.operations(named: action.action).first { !$0.isBound }?.returnType?.type
        } else {
            returned = model.operations(named: name).first?.returnType?.type
        }
        guard let returned, let type = model.entityType(named: returned.name) else { return .other }
        return AnswerShape(kind: returned.isCollection ? .collection : .entity, entitySet: set, entityType: type.qualifiedName)
    }

    /// The declared type of the property at `path` in entities of `typeName` (through complex types).
    private static func propertyType(_ path: [String], of typeName: String, model: MetadataModel) -> String? {
        guard let entityType = model.entityType(named: typeName), let first = path.first,
              var property = model.property(first, of: entityType) else { return nil }
        for name in path.dropFirst() {
            guard let complex = model.complexType(named: property.type.name),
                  let next = model.typeHierarchy(of: complex).lazy.compactMap({ $0.properties.first { $0.name == name } }).first
            else { return nil }
            property = next
        }
        return property.type.description
    }
}
