internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// One attribute of the current element, read without making a `String` until a value is asked for.
struct XMLAttributeView {
    let attribute: RecordedAttribute
    /// The value's bytes in the recording (NUL-terminated).
    let valueBytes: UnsafePointer<UInt8>
    /// The document holding the DTD's entities, for expanding references.
    let document: xmlDocPtr?
    /// The stream's name cache; the view never outlives the stream's `forEachAttribute` call.
    unowned(unsafe) let names: DictionaryNameCache

    init(attribute: RecordedAttribute, value: UnsafePointer<UInt8>, document: xmlDocPtr?, names: DictionaryNameCache) {
        self.attribute = attribute
        valueBytes = value
        self.document = document
        self.names = names
    }

    var namespaceKind: XMLNamespaceKind { XMLNamespaces.kind(of: attribute.namespaceURI) }

    /// The attribute's meaning when it is a plain (or `m:`) CSDL attribute.
    var csdlName: CSDLAttribute { names.attribute(attribute.localName) ?? .other }

    var name: String { attribute.localName.map { String(cString: $0) } ?? "" }

    /// The value's bytes (NUL-terminated, valid until the next read) when it holds no entity
    /// reference, which is nearly every value; nil otherwise (then use ``value``).
    var singleText: UnsafePointer<UInt8>? { attribute.hasReferences ? nil : valueBytes }

    /// The attribute value, entity references expanded.
    var value: String {
        guard attribute.hasReferences else {
            return String(decoding: UnsafeBufferPointer(start: valueBytes, count: attribute.valueLength), as: UTF8.self)
        }
        // What libxml2's tree builder does with such a value (`xmlSAX2AttributeNs`), then reading
        // it back with references expanded: the value is the same as a tree's attribute had.
        guard attribute.valueLength < Int(Int32.max),
              let nodes = xmlStringLenGetNodeList(document, valueBytes, Int32(attribute.valueLength)) else { return "" }
        defer { xmlFreeNodeList(nodes) }
        guard let joined = xmlNodeListGetString(document, nodes, 1) else { return "" }
        defer { cxml_free(joined) }
        return String(cString: joined)
    }

    /// The attribute kept as data (namespace URI, prefix, name, value).
    var asData: XMLAttribute {
        XMLAttribute(
            namespace: attribute.namespaceURI.map { String(cString: $0) } ?? "",
            prefix: attribute.prefix.map { String(cString: $0) } ?? "",
            name: name,
            value: value
        )
    }
}
