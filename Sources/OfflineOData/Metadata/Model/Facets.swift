/// The facets a property, parameter, return type or type definition may carry.
///
/// Values are parsed but never checked against data here; the SQL mapping and the write validation
/// use them. Absent facets are nil so that "not stated" and a default stay distinguishable.
public struct Facets: Sendable, Hashable {
    /// `MaxLength`: a number of characters/bytes, or `max` (V4) / `Max` (V2).
    public enum MaxLength: Sendable, Hashable {
        case max
        case length(Int)
    }

    /// `Scale`: digits to the right of the point, `variable` (V4), or `floating` (V4.01).
    public enum Scale: Sendable, Hashable {
        case digits(Int)
        case variable
        case floating
    }

    /// `Nullable`, true unless the document says `false`. (Collections: whether items may be null.)
    public internal(set) var isNullable: Bool = true
    public internal(set) var maxLength: MaxLength?
    public internal(set) var precision: Int?
    public internal(set) var scale: Scale?
    /// `SRID` as written: a number or `variable`.
    public internal(set) var srid: String?
    public internal(set) var isUnicode: Bool?
    /// V2/V3 `FixedLength`.
    public internal(set) var isFixedLength: Bool?
    /// `DefaultValue` as written in the document (a literal in the type's canonical form).
    public internal(set) var defaultValue: String?

    package init() {}
}
