/// The XML namespaces a `$metadata` document uses, and how the reader treats each.
///
/// All CSDL namespaces, V1 to V4, are read alike: real V2 services mix V4 elements
/// (`Annotation`, `EnumType`, even `Action`) into EDMX 1.0 documents, and the model has room for both.
enum XMLNamespaceKind: Sendable, Equatable {
    /// `edmx:` of EDMX 1.0 (OData V1–V3).
    case edmxV1
    /// `edmx:` of OData V4.
    case edmxV4
    /// A CSDL namespace (any version).
    case csdl
    /// `m:` (`http://schemas.microsoft.com/ado/2007/08/dataservices/metadata`).
    case dataServicesMetadata
    /// No namespace (plain attributes).
    case none
    /// Anything else: SAP `sap:`, `gp:`, Atom, `xml:`; elements are skipped, attributes kept as data.
    case foreign
}

enum XMLNamespaces {
    static let edmxV1 = "http://schemas.microsoft.com/ado/2007/06/edmx"
    static let edmxV4 = "http://docs.oasis-open.org/odata/ns/edmx"
    static let dataServicesMetadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    static let csdl = [
        "http://docs.oasis-open.org/odata/ns/edm",
        "http://schemas.microsoft.com/ado/2009/11/edm",
        "http://schemas.microsoft.com/ado/2008/09/edm",
        "http://schemas.microsoft.com/ado/2008/01/edm",
        "http://schemas.microsoft.com/ado/2007/05/edm",
        "http://schemas.microsoft.com/ado/2006/04/edm",
    ]

    static let table = ByteNameTable<XMLNamespaceKind>(
        [(edmxV1, .edmxV1), (edmxV4, .edmxV4), (dataServicesMetadata, .dataServicesMetadata)]
            + csdl.map { ($0, XMLNamespaceKind.csdl) }
    )

    /// Classifies a namespace URI (NUL-terminated bytes); nil pointer means no namespace.
    static func kind(of uri: UnsafePointer<UInt8>?) -> XMLNamespaceKind {
        guard let uri else { return .none }
        return table.value(for: uri) ?? .foreign
    }
}
