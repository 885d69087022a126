/// One attribute of the current element, read without making a `String` until a value is asked for.
struct XMLAttributeView {
    let attribute: RecordedAttribute
    /// The value's bytes in the recording (NUL-terminated, entity references expanded).
    let valueBytes: UnsafePointer<UInt8>

    init(attribute: RecordedAttribute, value: UnsafePointer<UInt8>) {
        self.attribute = attribute
        valueBytes = value
    }

    var namespaceKind: XMLNamespaceKind { XMLNamespaces.kind(of: attribute.namespaceURI) }

    /// The attribute's meaning when it is a plain (or `m:`) CSDL attribute.
    var csdlName: CSDLAttribute { attribute.kind ?? .other }

    var name: String { attribute.localName.map { String(cString: $0) } ?? "" }

    /// The value's bytes, without the terminating NUL (valid until the next read).
    var valueBuffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: valueBytes, count: attribute.valueLength) }

    /// The attribute value.
    var value: String {
        String(decoding: valueBuffer, as: UTF8.self)
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
