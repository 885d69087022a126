/// A V4 function or action declared in a schema (`<Function>`, `<Action>`).
///
/// Functions have no side effects and are called with GET; actions may change data and are
/// called with POST. A bound operation's first parameter is its binding parameter: the entity type
/// (or collection of it) the operation is addressed through, `Set(key)/NS.Operation`.
public struct Operation: Annotatable, Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case function = "Function"
        case action = "Action"
    }

    public internal(set) var kind: Kind
    public internal(set) var namespace: String
    public internal(set) var name: String
    public internal(set) var isBound: Bool = false
    /// Functions only: further path segments or query options may follow the call.
    public internal(set) var isComposable: Bool = false
    public internal(set) var entitySetPath: String?
    public internal(set) var parameters: [Parameter] = []
    public internal(set) var returnType: ReturnType?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }

    /// The binding parameter of a bound operation.
    public var bindingParameter: Parameter? { isBound ? parameters.first : nil }
}

/// A parameter of an operation or of a V2 function import.
public struct Parameter: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var type: TypeReference
    public internal(set) var facets: Facets
    /// V2/V3 `Mode` (`In`, `Out`, `InOut`), as written.
    public internal(set) var mode: String?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine
}

/// The return type of an operation or function import.
public struct ReturnType: Sendable, Hashable {
    public internal(set) var type: TypeReference
    public internal(set) var facets: Facets
}
