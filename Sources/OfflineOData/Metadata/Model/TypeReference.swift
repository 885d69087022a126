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

    package init(name: String, isCollection: Bool = false, kind: Kind = .unresolved) {
        self.name = name
        self.isCollection = isCollection
        self.kind = kind
    }

    /// Parses the text of a `Type` attribute; nil when `Collection(` is not closed or the name is empty.
    init?(parsing text: String) {
        // On the contiguous UTF-8 bytes: `String.UTF8View` searches step index by index, and the
        // reader parses one of these per property and parameter.
        var text = text
        // nil: malformed; `.some(nil)`: a plain name; `.some(inner)`: a collection's element type.
        let parsed: String?? = text.withUTF8 { bytes in
            guard let (range, isCollection) = TypeReference.nameRange(in: bytes) else { return nil }
            return isCollection ? .some(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)) : .some(nil)
        }
        switch parsed {
        case nil: return nil
        case .some(nil): self.init(name: text)
        case .some(.some(let inner)): self.init(name: inner, isCollection: true)
        }
    }

    /// Where the (element) type's name lies in the bytes of a `Type` attribute, and whether it is
    /// `Collection(...)`; nil when `Collection(` is not closed or the name is empty. The reader
    /// calls this on libxml2's bytes, so that the name's `String` is made (or shared) only once.
    static func nameRange(in bytes: UnsafeBufferPointer<UInt8>) -> (range: Range<Int>, isCollection: Bool)? {
        let open = UInt8(ascii: "("), close = UInt8(ascii: ")")
        guard let parenthesis = bytes.firstIndex(of: open) else { return bytes.isEmpty ? nil : (0..<bytes.count, false) }
        let collection = "Collection".utf8
        guard parenthesis == collection.count, bytes.starts(with: collection), bytes.last == close else { return nil }
        // `bytes[parenthesis]` is `(` and the last byte `)`, so the range is well formed.
        let inner = (parenthesis + 1)..<(bytes.count - 1)
        guard !inner.isEmpty, !bytes[inner].contains(open), !bytes[inner].contains(close) else { return nil }
        return (inner, true)
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
