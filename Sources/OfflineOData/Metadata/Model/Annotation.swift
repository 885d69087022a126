/// A V4 vocabulary annotation (`<Annotation Term="Core.Description" String="..."/>`), kept as data.
///
/// The engine interprets no vocabulary while reading: terms are kept as written (alias included),
/// and the value is the expression tree as the document spells it. Later stages that care about a
/// term (say `Core.OptimisticConcurrency`) look it up here.
public struct Annotation: Sendable, Hashable {
    /// The term as written, e.g. `Org.OData.Core.V1.Description` or `Core.Description`.
    public internal(set) var term: String
    public internal(set) var qualifier: String?
    /// The value: the constant-expression attribute (`String="x"` becomes kind `String`, value `x`)
    /// or the first expression child element; nil when the annotation has no value (a default `true`).
    public internal(set) var value: AnnotationExpression?
    /// Annotations of this annotation.
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var sourceLine: SourceLine

    package init(term: String, qualifier: String? = nil, value: AnnotationExpression? = nil, sourceLine: SourceLine = .unknown) {
        self.term = term
        self.qualifier = qualifier
        self.value = value
        self.sourceLine = sourceLine
    }
}

/// One node of an annotation's expression, kept as XML-shaped data: `Record`, `PropertyValue`,
/// `Collection`, `String`, `Path`, `If`, `Apply` and the rest, with their attributes and children.
public struct AnnotationExpression: Sendable, Hashable {
    /// The element's local name, or the attribute name for the attribute shorthand (`Bool`, `EnumMember`).
    public internal(set) var kind: String
    /// The text content (`<String>abc</String>`) or the attribute value of the shorthand form.
    public internal(set) var value: String?
    public internal(set) var attributes: [XMLAttribute] = []
    public internal(set) var children: [AnnotationExpression] = []

    package init(kind: String, value: String? = nil, attributes: [XMLAttribute] = [], children: [AnnotationExpression] = []) {
        self.kind = kind
        self.value = value
        self.attributes = attributes
        self.children = children
    }
}

/// An attribute kept as data: a plain CSDL attribute inside an annotation expression, or an
/// attribute of a foreign namespace on a model element (`sap:label="Agency"`).
public struct XMLAttribute: Sendable, Hashable {
    /// The namespace URI; empty for attributes without a namespace.
    public internal(set) var namespace: String
    /// The prefix used in the document (`sap`), empty when none.
    public internal(set) var prefix: String
    public internal(set) var name: String
    public internal(set) var value: String

    package init(namespace: String = "", prefix: String = "", name: String, value: String) {
        self.namespace = namespace
        self.prefix = prefix
        self.name = name
        self.value = value
    }

    /// The namespace URI SAP Gateway uses for its `sap:` attributes.
    public static let sapNamespace = "http://www.sap.com/Protocols/SAPData"
}

/// An `<Annotations Target="...">` block: annotations applied from outside the target element.
public struct AnnotationGroup: Sendable, Hashable {
    /// The target path as written (`NS.Type/Property`, `NS.Container/Set`, `NS.Function(NS.T)`).
    public internal(set) var target: String
    public internal(set) var qualifier: String?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var sourceLine: SourceLine
}

/// The data every annotatable element carries.
public protocol Annotatable {
    /// V4 `Annotation` children of the element.
    var annotations: [Annotation] { get }
    /// Attributes of foreign namespaces (`sap:`, `m:` ones the model does not model itself).
    var foreignAttributes: [XMLAttribute] { get }
}

extension Annotatable {
    /// The annotation with this term (as written) and qualifier, if any.
    public func annotation(_ term: String, qualifier: String? = nil) -> Annotation? {
        annotations.first { $0.term == term && $0.qualifier == qualifier }
    }

    /// The value of a `sap:` attribute (`sapAttribute("label")`), if present.
    public func sapAttribute(_ name: String) -> String? {
        foreignAttributes.first { $0.namespace == XMLAttribute.sapNamespace && $0.name == name }?.value
    }
}
