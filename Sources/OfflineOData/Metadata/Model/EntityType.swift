/// An entity type: a keyed structured type that entity sets hold.
///
/// ``key`` is the type's own `Key`; a derived type inherits its base type's key, so use
/// ``MetadataModel/keyProperties(of:)`` to get the effective key.
public struct EntityType: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    /// Qualified base type name (alias replaced by validation), if derived.
    public internal(set) var baseType: String?
    public internal(set) var key: [PropertyRef]?
    public internal(set) var properties: [Property] = []
    public internal(set) var navigationProperties: [NavigationProperty] = []
    public internal(set) var isAbstract: Bool = false
    public internal(set) var isOpen: Bool = false
    /// A media entity (V2 `m:HasStream="true"`, V4 `HasStream="true"`).
    public internal(set) var hasStream: Bool = false
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    /// `Namespace.Name`, e.g. `RMTSAMPLEFLIGHT.Travelagency`.
    public var qualifiedName: String { namespace + "." + name }

    /// The type's own property with this name (inherited ones: ``MetadataModel/property(_:of:)``).
    public func property(named name: String) -> Property? { properties.first { $0.name == name } }

    /// The type's own navigation property with this name.
    public func navigationProperty(named name: String) -> NavigationProperty? {
        navigationProperties.first { $0.name == name }
    }
}

/// A complex type: a structured type without a key, used as a property's type.
public struct ComplexType: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    public internal(set) var baseType: String?
    public internal(set) var properties: [Property] = []
    public internal(set) var navigationProperties: [NavigationProperty] = []
    public internal(set) var isAbstract: Bool = false
    public internal(set) var isOpen: Bool = false
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }
}
