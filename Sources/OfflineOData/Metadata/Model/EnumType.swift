/// An enumeration type, with members in document order.
public struct EnumType: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    /// `Edm.Byte`, `Edm.SByte`, `Edm.Int16`, `Edm.Int32` (the default) or `Edm.Int64`.
    public internal(set) var underlyingType: PrimitiveType = .int32
    public internal(set) var isFlags: Bool = false
    public internal(set) var members: [EnumMember] = []
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }
}

/// A member of an enumeration type. Members without `Value` count up from the previous one (from 0).
public struct EnumMember: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    /// The member's value; nil when the document's value does not fit in 64 bits (a tolerated
    /// defect, listed in ``MetadataModel/diagnostics``), and for members after such a one.
    public internal(set) var value: Int64?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
}

/// A type definition: a named primitive type with facets (`TypeDefinition Name="Money" UnderlyingType="Edm.Decimal"`).
public struct TypeDefinition: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    public internal(set) var underlyingType: TypeReference
    public internal(set) var facets: Facets
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }
}

/// A vocabulary term defined by the document itself (most terms come from referenced vocabularies).
public struct Term: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    public internal(set) var type: TypeReference
    public internal(set) var baseTerm: String?
    /// `AppliesTo`, as written (space-separated element kinds).
    public internal(set) var appliesTo: String?
    public internal(set) var facets: Facets
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }
}
