/// A V2/V3 association, as written. Its meaning is carried over into navigation properties.
public struct Association: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    public internal(set) var ends: [AssociationEnd] = []
    public internal(set) var referentialConstraint: AssociationConstraint?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }

    public func end(role: String) -> AssociationEnd? { ends.first { $0.role == role } }
}

/// One end of an association: a role, its entity type and its multiplicity.
public struct AssociationEnd: Sendable, Hashable {
    public internal(set) var role: String
    public internal(set) var type: String
    public internal(set) var multiplicity: Multiplicity
    public internal(set) var onDelete: String?
    public internal(set) var sourceLine: SourceLine
}

/// A V2/V3 `ReferentialConstraint`: the dependent role's properties refer to the principal's key.
public struct AssociationConstraint: Sendable, Hashable {
    public internal(set) var principalRole: String
    public internal(set) var principalProperties: [String] = []
    public internal(set) var dependentRole: String
    public internal(set) var dependentProperties: [String] = []
    public internal(set) var sourceLine: SourceLine
}

/// A V2/V3 association set: which entity sets the two ends of an association live in.
public struct AssociationSet: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var association: String
    public internal(set) var ends: [AssociationSetEnd] = []
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine
}

/// `<End Role="..." EntitySet="..."/>` of an association set.
public struct AssociationSetEnd: Sendable, Hashable {
    public internal(set) var role: String
    public internal(set) var entitySet: String
    public internal(set) var sourceLine: SourceLine
}
