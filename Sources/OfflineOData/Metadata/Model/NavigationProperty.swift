/// How many entities a navigation property leads to.
public enum Multiplicity: String, Sendable, Hashable {
    /// Exactly one (`1`; V4: single-valued, `Nullable="false"`).
    case one = "1"
    /// At most one (`0..1`; V4: single-valued, nullable).
    case zeroOrOne = "0..1"
    /// Any number (`*`; V4: `Collection(...)`).
    case many = "*"
}

/// A navigation property, in the V4 shape whatever the document's version.
///
/// V2/V3 documents state navigation through `Relationship`/`FromRole`/`ToRole` and an `Association`;
/// the reader resolves those into ``type``, ``multiplicity``, ``partner`` and
/// ``referentialConstraints``, and keeps the original names in ``association``.
public struct NavigationProperty: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    /// The target entity type, `Collection(...)` when ``multiplicity`` is `.many`.
    public internal(set) var type: TypeReference
    public internal(set) var multiplicity: Multiplicity
    /// The navigation property on the target type that leads back, if declared.
    public internal(set) var partner: String?
    /// V4 containment: the targets live inside this entity and have no entity set of their own.
    public internal(set) var containsTarget: Bool = false
    /// Dependent property (here) → principal property (on the target).
    public internal(set) var referentialConstraints: [ReferentialConstraint] = []
    /// V4 `OnDelete Action` (`Cascade`, `None`, `SetNull`, `SetDefault`), as written.
    public internal(set) var onDelete: String?
    /// The V2/V3 association this property was declared through; nil in V4 documents.
    public internal(set) var association: AssociationLink?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    /// The qualified name of the target entity type.
    public var targetTypeName: String { type.name }
}

/// A referential constraint seen from the dependent side: `property` here equals
/// `referencedProperty` on the principal (the navigation target).
public struct ReferentialConstraint: Sendable, Hashable {
    public internal(set) var property: String
    public internal(set) var referencedProperty: String
}

/// The V2/V3 attributes of a navigation property, as written.
public struct AssociationLink: Sendable, Hashable {
    /// The qualified association name (`Relationship`).
    public internal(set) var relationship: String
    public internal(set) var fromRole: String
    public internal(set) var toRole: String
}
