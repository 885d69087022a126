/// The protocol version a `$metadata` document declares.
///
/// EDMX 1.0 documents (OData V1 to V3) carry `m:DataServiceVersion` on `edmx:DataServices`;
/// OData V4 documents carry `Version="4.0"` or `"4.01"` on `edmx:Edmx`. The stores only need to
/// know which wire dialect to speak, hence ``usesV4Protocol``.
public enum ODataVersion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case v1 = "1.0"
    case v2 = "2.0"
    case v3 = "3.0"
    case v4 = "4.0"
    case v401 = "4.01"

    /// True for 4.0 and 4.01: JSON with `@odata.*` annotations, V4 literals and operations.
    public var usesV4Protocol: Bool { self == .v4 || self == .v401 }

    public var description: String { rawValue }
}
