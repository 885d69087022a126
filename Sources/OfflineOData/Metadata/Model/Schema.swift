/// One `<Schema>`: a namespace (with an optional alias) and the elements declared in it.
public struct Schema: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var alias: String?
    public internal(set) var entityTypes: [EntityType] = []
    public internal(set) var complexTypes: [ComplexType] = []
    public internal(set) var enumTypes: [EnumType] = []
    public internal(set) var typeDefinitions: [TypeDefinition] = []
    /// V4 functions and actions, overloads included, in document order.
    public internal(set) var operations: [Operation] = []
    public internal(set) var terms: [Term] = []
    public internal(set) var entityContainers: [EntityContainer] = []
    /// V2/V3 associations, as written.
    public internal(set) var associations: [Association] = []
    /// `<Annotations Target="...">` blocks.
    public internal(set) var annotationGroups: [AnnotationGroup] = []
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine
}

/// An `edmx:Reference`: another CSDL document (usually a vocabulary) this one uses.
/// The reader never fetches it; types from its included namespaces count as external.
public struct DocumentReference: Sendable, Hashable {
    public internal(set) var uri: String
    public internal(set) var includes: [Include] = []
    public internal(set) var sourceLine: SourceLine

    /// `edmx:Include Namespace="..." Alias="..."`.
    public struct Include: Sendable, Hashable {
        public internal(set) var namespace: String
        public internal(set) var alias: String?
    }
}
