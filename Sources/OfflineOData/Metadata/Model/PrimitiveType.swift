/// The primitive types of the `Edm` namespace, V2 to V4.01.
///
/// V2's `Edm.DateTime` and `Edm.Time` are kept as they are: a V2 store speaks V2 literals, and
/// mapping them to `DateTimeOffset` / `TimeOfDay` is the payload codec's decision, not the model's.
public enum PrimitiveType: String, Sendable, Hashable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case date = "Edm.Date"
    case dateTime = "Edm.DateTime"
    case dateTimeOffset = "Edm.DateTimeOffset"
    case decimal = "Edm.Decimal"
    case double = "Edm.Double"
    case duration = "Edm.Duration"
    case guid = "Edm.Guid"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case sByte = "Edm.SByte"
    case single = "Edm.Single"
    case stream = "Edm.Stream"
    case string = "Edm.String"
    case time = "Edm.Time"
    case timeOfDay = "Edm.TimeOfDay"
    case geography = "Edm.Geography"
    case geographyPoint = "Edm.GeographyPoint"
    case geographyLineString = "Edm.GeographyLineString"
    case geographyPolygon = "Edm.GeographyPolygon"
    case geographyMultiPoint = "Edm.GeographyMultiPoint"
    case geographyMultiLineString = "Edm.GeographyMultiLineString"
    case geographyMultiPolygon = "Edm.GeographyMultiPolygon"
    case geographyCollection = "Edm.GeographyCollection"
    case geometry = "Edm.Geometry"
    case geometryPoint = "Edm.GeometryPoint"
    case geometryLineString = "Edm.GeometryLineString"
    case geometryPolygon = "Edm.GeometryPolygon"
    case geometryMultiPoint = "Edm.GeometryMultiPoint"
    case geometryMultiLineString = "Edm.GeometryMultiLineString"
    case geometryMultiPolygon = "Edm.GeometryMultiPolygon"
    case geometryCollection = "Edm.GeometryCollection"
    /// Path types, used by vocabulary terms.
    case annotationPath = "Edm.AnnotationPath"
    case propertyPath = "Edm.PropertyPath"
    case navigationPropertyPath = "Edm.NavigationPropertyPath"
    case anyPropertyPath = "Edm.AnyPropertyPath"
    case modelElementPath = "Edm.ModelElementPath"

    /// The integer types an enum type may use as its underlying type.
    public var isIntegral: Bool {
        switch self {
        case .byte, .sByte, .int16, .int32, .int64: true
        default: false
        }
    }

    private static let byName: [String: PrimitiveType] = {
        var table: [String: PrimitiveType] = [:]
        for type in allCases { table[type.rawValue] = type }
        return table
    }()

    /// The primitive type with this qualified name (`Edm.Int32`), or nil.
    public static func named(_ qualifiedName: String) -> PrimitiveType? { byName[qualifiedName] }
}

/// The abstract types of the `Edm` namespace, allowed in operations and terms but never stored.
public enum AbstractType: String, Sendable, Hashable, CaseIterable {
    case primitiveType = "Edm.PrimitiveType"
    case untyped = "Edm.Untyped"
    case entityType = "Edm.EntityType"
    case complexType = "Edm.ComplexType"
}
