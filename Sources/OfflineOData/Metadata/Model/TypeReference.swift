/// A reference to a type as written in `Type="..."`: a qualified name, possibly in `Collection(...)`.
///
/// The reader records the name as written; validation replaces an alias by its namespace and sets
/// ``kind``, so that after a successful read every reference in the model is resolved.
public struct TypeReference: Sendable, Hashable, CustomStringConvertible {
    /// What a resolved reference names.
    public enum Kind: Sendable, Hashable {
        /// Not resolved yet (only seen before validation finishes).
        case unresolved
        case primitive(PrimitiveType)
        /// `Edm.PrimitiveType`, `Edm.Untyped`, `Edm.EntityType`, `Edm.ComplexType`.
        case abstract(AbstractType)
        case entity
        case complex
        case enumeration
        /// A type definition; the store handles it as its underlying primitive type.
        case definition(underlying: PrimitiveType)
        /// A name in the reserved `Edm` namespace that no OData version defines (`Edm.Float`).
        /// Kept only when ``MetadataReader/Options/acceptsUnknownEdmTypes`` is on.
        case unknownEdmType
        /// A type of a namespace included from another document (`edmx:Reference`), which the
        /// reader never fetches.
        case external
    }

    /// The qualified name of the (element) type, e.g. `Edm.String` or `NorthwindModel.Product`.
    public internal(set) var name: String
    /// True for `Collection(...)`.
    public internal(set) var isCollection: Bool
    public internal(set) var kind: Kind

    public init(name: String, isCollection: Bool = false, kind: Kind = .unresolved) {
        self.name = name
        self.isCollection = isCollection
        self.kind = kind
    }

    /// Parses the text of a `Type` attribute; nil when `Collection(` is not closed or the name is empty.
    init?(parsing text: String) {
        let open = UInt8(ascii: "(")
        guard let parenthesis = text.utf8.firstIndex(of: open) else {
            guard !text.isEmpty else { return nil }
            self.init(name: text)
            return
        }
        guard text[..<parenthesis] == "Collection", text.utf8.last == UInt8(ascii: ")") else { return nil }
        let inner = text.utf8[text.utf8.index(after: parenthesis)..<text.utf8.index(before: text.utf8.endIndex)]
        guard !inner.isEmpty, !inner.contains(open), !inner.contains(UInt8(ascii: ")")) else { return nil }
        self.init(name: String(Substring(inner)), isCollection: true)
    }

    /// The primitive type this reference stands for, looking through type definitions.
    public var primitiveType: PrimitiveType? {
        switch kind {
        case .primitive(let type): type
        case .definition(let underlying): underlying
        default: nil
        }
    }

    public var description: String { isCollection ? "Collection(\(name))" : name }
}
