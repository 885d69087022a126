/// A structural property of an entity or complex type.
public struct Property: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var type: TypeReference
    public internal(set) var facets: Facets
    /// V2/V3 `ConcurrencyMode="Fixed"`: the property takes part in the entity's ETag.
    /// (V4 states this with `Core.OptimisticConcurrency` on the entity set, kept as an annotation.)
    public internal(set) var isConcurrencyToken: Bool = false
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var isNullable: Bool { facets.isNullable }

    package init(name: String, type: TypeReference, facets: Facets = Facets(), sourceLine: SourceLine = .unknown) {
        self.name = name
        self.type = type
        self.facets = facets
        self.sourceLine = sourceLine
    }
}

/// A `PropertyRef` of a key: the property path (V4.01 allows paths into complex properties) and its alias.
public struct PropertyRef: Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var alias: String?
    public internal(set) var sourceLine: SourceLine
}
