#if canImport(Glibc)
import Glibc
#endif

/// What the reader produces before validation: the document's parts, names still as written.
struct CSDLDocument {
    var edmxVersion: String
    var version: ODataVersion
    var schemas: [Schema]
    var references: [DocumentReference]
    /// Every declared name with its place, or nil when a name is declared twice (see ``DeclarationTable``).
    var declarations: [String: DeclaredElement]?
    /// The functions and actions declared, with their faults (see ``OperationDeclarationTable``).
    var operations: OperationDeclarationTable?
    /// No entity or complex type declares a property name twice (the reader checked as it went);
    /// false makes validation check each type itself.
    var propertyNamesAreUnique = false
}

/// Reads an EDMX document (EDMX 1.0 with DataServiceVersion 1.0–3.0, or EDMX 4.0/4.01) from an
/// ``XMLStream`` into model parts, in one pass.
///
/// The reader is strict about structure it models (a required attribute missing, a facet that is
/// not a number, two keys) and lenient about everything else: elements of foreign namespaces
/// (SAP `gp:`, `atom:link`) and unknown CSDL elements are skipped, foreign attributes are kept as
/// data. Resolution of names and the semantic checks happen afterwards (``ModelValidator``).
final class CSDLReader {
    let stream: XMLStream
    let options: MetadataReader.Options
    /// Shares the `String` of repeated long values (type names, terms) within this read.
    let interner = ValueInterner()
    /// The `Edm` primitives named so far, for type references.
    let primitives = PrimitiveNameCache()
    /// Tolerated defects (see ``MetadataModel/diagnostics``).
    private(set) var diagnostics: [ODataError] = []
    /// The names the schemas read so far declare.
    private var declarations = DeclarationTable()
    /// The functions and actions the schemas read so far declare.
    private var operations = OperationDeclarationTable()
    /// Some entity or complex type read so far declares a property name twice.
    private var sawDuplicateProperty = false

    init(stream: XMLStream, options: MetadataReader.Options) {
        self.stream = stream
        self.options = options
    }

    /// Records a defect that leaves the rest of the model usable; an error in strict mode.
    func tolerate(_ defect: ODataError) throws(ODataError) {
        if options.isStrict { throw defect }
        diagnostics.append(defect)
    }

    func readDocument() throws(ODataError) -> CSDLDocument {
        var event = try stream.next()
        while event == .text { event = try stream.next() }
        guard event == .elementStart else {
            throw ODataError(.metadata, "the document has no root element", line: 1, column: 1)
        }
        let rootKind = stream.namespaceKind
        guard stream.elementName == .edmx, rootKind == .edmxV1 || rootKind == .edmxV4 else {
            let namespace = stream.namespaceURI ?? "no namespace"
            throw stream.error("the root element is <\(stream.qualifiedTagName)> (\(namespace)), not edmx:Edmx of an EDMX namespace")
        }
        var edmxVersion = ""
        try stream.forEachAttribute { attribute throws(ODataError) in
            if attribute.namespaceKind == .none, attribute.csdlName == .version { edmxVersion = attribute.value }
        }
        var dataServiceVersion: String?
        var sawDataServices = false
        var schemas: [Schema] = []
        var references: [DocumentReference] = []
        try stream.forEachChild { () throws(ODataError) in
            let kind = stream.namespaceKind
            guard kind == .edmxV1 || kind == .edmxV4 else { return try stream.skipElement() }
            switch stream.elementName {
            case .reference:
                references.append(try readReference())
            case .dataServices:
                if sawDataServices { throw stream.error("edmx:Edmx has more than one edmx:DataServices") }
                sawDataServices = true
                try stream.forEachAttribute { attribute throws(ODataError) in
                    if attribute.namespaceKind == .dataServicesMetadata, attribute.csdlName == .dataServiceVersion {
                        dataServiceVersion = attribute.value
                    }
                }
                try stream.forEachChild { () throws(ODataError) in
                    let isSchema = stream.elementName == .schema
                    if isSchema && stream.namespaceKind == .csdl {
                        schemas.append(try readSchema(index: schemas.count))
                    } else if isSchema {
                        let namespace = stream.namespaceURI ?? "no namespace"
                        throw stream.error("<\(stream.qualifiedTagName)> is in namespace '\(namespace)', which is not a CSDL namespace")
                    } else {
                        try stream.skipElement()
                    }
                }
            default:
                try stream.skipElement()
            }
        }
        // Read to the end, so that anything malformed after the root is still reported.
        while try stream.next() != .endOfDocument {}
        guard sawDataServices else {
            throw ODataError(.metadata, "the document has no edmx:DataServices element", line: 1, column: 1)
        }
        let version = try protocolVersion(edmxNamespace: rootKind, edmxVersion: edmxVersion, dataServiceVersion: dataServiceVersion)
        return CSDLDocument(edmxVersion: edmxVersion, version: version, schemas: schemas, references: references,
                            declarations: declarations.complete, operations: operations,
                            propertyNamesAreUnique: !sawDuplicateProperty)
    }

    /// EDMX 1.0 documents say their protocol version in `m:DataServiceVersion` (1.0 when absent);
    /// V4 documents in `Version`.
    private func protocolVersion(edmxNamespace: XMLNamespaceKind, edmxVersion: String, dataServiceVersion: String?) throws(ODataError) -> ODataVersion {
        if edmxNamespace == .edmxV4 {
            switch edmxVersion {
            case "4.0": return .v4
            case "4.01": return .v401
            default: throw ODataError(.metadata, "unsupported EDMX version '\(edmxVersion)' (expected 4.0 or 4.01)", line: 2)
            }
        }
        let declared = dataServiceVersion ?? "1.0"
        switch declared.split(separator: ".").first {
        case "1": return .v1
        case "2": return .v2
        case "3": return .v3
        default: throw ODataError(.metadata, "unsupported DataServiceVersion '\(declared)' (expected 1.0 to 3.0)", line: 3)
        }
    }

    private func readReference() throws(ODataError) -> DocumentReference {
        var reference = DocumentReference(uri: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            if attribute.namespaceKind == .none, attribute.csdlName == .uri { reference.uri = attribute.value }
        }
        try stream.forEachChild { () throws(ODataError) in
            let kind = stream.namespaceKind
            if (kind == .edmxV4 || kind == .edmxV1), stream.elementName == .include {
                var namespace: String?
                var alias: String?
                try stream.forEachAttribute { attribute throws(ODataError) in
                    guard attribute.namespaceKind == .none else { return }
                    switch attribute.csdlName {
                    case .namespace: namespace = attribute.value
                    case .alias: alias = attribute.value
                    default: break
                    }
                }
                guard let namespace, !namespace.isEmpty else { throw stream.error("edmx:Include has no Namespace") }
                reference.includes.append(.init(namespace: namespace, alias: alias))
            }
            try stream.skipElement()
        }
        return reference
    }

    /// The current element's kind, when it is in a CSDL namespace; `.other` otherwise.
    var currentElement: CSDLElement {
        guard stream.namespaceKind == .csdl else { return .other }
        return stream.elementName ?? .other
    }

    // MARK: Schema

    /// `index`: the schema's place among the document's schemas.
    private func readSchema(index schemaIndex: Int) throws(ODataError) -> Schema {
        var schema = Schema(namespace: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            switch (attribute.namespaceKind, attribute.csdlName) {
            case (.none, .namespace): schema.namespace = attribute.value
            case (.none, .alias): schema.alias = attribute.value
            default: keepForeign(attribute, in: &schema.foreignAttributes)
            }
        }
        guard !schema.namespace.isEmpty else { throw stream.error("Schema has no Namespace") }
        let namespace = schema.namespace
        operations.beginSchema()
        try stream.forEachChild { () throws(ODataError) in
            switch currentElement {
            case .entityType:
                try readDeclared(in: namespace, into: &schema.entityTypes, \.name, { .entityType(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readEntityType(namespace: namespace)
                }
            case .complexType:
                try readDeclared(in: namespace, into: &schema.complexTypes, \.name, { .complexType(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readComplexType(namespace: namespace)
                }
            case .enumType:
                try readDeclared(in: namespace, into: &schema.enumTypes, \.name, { .enumType(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readEnumType(namespace: namespace)
                }
            case .typeDefinition:
                try readDeclared(in: namespace, into: &schema.typeDefinitions, \.name, { .typeDefinition(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readTypeDefinition(namespace: namespace)
                }
            case .term:
                try readDeclared(in: namespace, into: &schema.terms, \.name, { .term(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readTerm(namespace: namespace)
                }
            case .function: declareOperation(try readOperation(.function, namespace: namespace), in: namespace, into: &schema.operations)
            case .action: declareOperation(try readOperation(.action, namespace: namespace), in: namespace, into: &schema.operations)
            case .entityContainer:
                try readDeclared(in: namespace, into: &schema.entityContainers, \.name, { .entityContainer(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readEntityContainer(namespace: namespace)
                }
            case .association:
                try readDeclared(in: namespace, into: &schema.associations, \.name, { .association(schema: schemaIndex, index: $0) }) {
                    () throws(ODataError) in try readAssociation(namespace: namespace)
                }
            case .annotations: schema.annotationGroups.append(try readAnnotationGroup())
            case .annotation: schema.annotations.append(try readAnnotation())
            default: try stream.skipElement()
            }
        }
        return schema
    }

    /// Reads an element declaring a name into `list`, and declares the name (`Namespace.Name`)
    /// with its place: `place` of the index the element gets in `list`.
    private func readDeclared<Element>(in namespace: String, into list: inout [Element], _ name: KeyPath<Element, String>,
                                       _ place: (Int) -> DeclaredElement,
                                       _ read: () throws(ODataError) -> Element) throws(ODataError) {
        let element = try read()
        declarations.declare(namespace, element[keyPath: name], place(list.count))
        list.append(element)
    }

    /// Appends `operation` to `list` and declares its qualified name; a kind conflict's fault is
    /// built now, with what validation's would have (``ModelValidator/fault(_:at:element:attribute:locator:)``).
    private func declareOperation(_ operation: Operation, in namespace: String, into list: inout [Operation]) {
        let locator = stream.locator
        operations.declare(operation, in: namespace) { message in
            ModelValidator.fault(message, at: operation.sourceLine, element: operation.kind.rawValue, attribute: "Name",
                                 locator: locator)
        }
        list.append(operation)
    }

    /// Notes whether `properties` (one type's) name a property twice, so that validation, which
    /// rejects such a type where it stands among its other checks, need not look at the others.
    func noteDuplicateNames(in properties: [Property]) {
        if sawDuplicateProperty { return }
        if properties.count > 16 {
            var seen = Set<String>(minimumCapacity: properties.count)
            for property in properties where !seen.insert(property.name).inserted {
                sawDuplicateProperty = true
                return
            }
        } else {
            for index in properties.indices where properties[..<index].contains(where: { $0.name == properties[index].name }) {
                sawDuplicateProperty = true
                return
            }
        }
    }

    // MARK: Attribute helpers

    /// Keeps attributes of foreign namespaces (and `m:` ones the model has no field for) as data.
    func keepForeign(_ attribute: XMLAttributeView, in list: inout [XMLAttribute]) {
        switch attribute.namespaceKind {
        case .foreign, .dataServicesMetadata: list.append(attribute.asData)
        default: break
        }
    }

    /// An `xs:boolean` attribute value.
    func boolean(_ attribute: XMLAttributeView) throws(ODataError) -> Bool {
        // xs:boolean is lower case; some SAP services write `True`, which is read the same.
        switch attribute.value {
        case "true", "1", "True", "TRUE": return true
        case "false", "0", "False", "FALSE": return false
        case let other: throw stream.error("\(attribute.name)=\"\(other)\" is not a boolean", attribute: attribute.name)
        }
    }

    /// A non-empty required attribute, or an error naming the element and the attribute.
    func required(_ value: String?, _ attribute: String, of element: String) throws(ODataError) -> String {
        guard let value, !value.isEmpty else { throw stream.error("\(element) has no \(attribute) attribute") }
        return value
    }

    /// An attribute value whose long repeats share one `String` (terms, base types, partners).
    func sharedValue(_ attribute: XMLAttributeView) -> String {
        interner.string(cString: attribute.valueBytes)
    }

    /// A `Type`-like attribute parsed into a type reference.
    func typeReference(_ attribute: XMLAttributeView) throws(ODataError) -> TypeReference {
        let bytes = attribute.valueBuffer
        if let (range, isCollection) = TypeReference.nameRange(in: bytes), let start = bytes.baseAddress {
            let name = interner.string(start + range.lowerBound, count: range.count)
            // An `Edm` primitive means the same in every schema: known now, while the parse thread
            // is still busy, rather than looked up again in validation (``ModelValidator/resolve``).
            let isEdm = range.count > 4 && memcmp(start + range.lowerBound, "Edm.", 4) == 0
            if isEdm, let primitive = primitives.primitive(named: name) {
                return TypeReference(name: name, isCollection: isCollection, kind: .primitive(primitive))
            }
            return TypeReference(name: name, isCollection: isCollection)
        }
        let text = attribute.value
        guard let reference = TypeReference(parsing: text) else {
            throw stream.error("\(attribute.name)=\"\(text)\" is not a type name", attribute: attribute.name)
        }
        return reference
    }
}
