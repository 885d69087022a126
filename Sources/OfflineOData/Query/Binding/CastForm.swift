/// The stored form (``PrimitiveCast/Form``) of the primitive types `cast` converts between; nil
/// for the types it does not (binary, stream, geo, V2's DateTime and Time, path types).
extension PrimitiveCast.Form {
    init?(_ type: PrimitiveType) {
        switch type {
        case .string: self = .string
        case .boolean: self = .boolean
        case .byte: self = .byte
        case .sByte: self = .sByte
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .decimal: self = .decimal
        case .double: self = .double
        case .single: self = .single
        case .date: self = .date
        case .timeOfDay: self = .timeOfDay
        case .guid: self = .guid
        case .duration: self = .duration
        case .dateTimeOffset: self = .dateTimeOffset
        default: return nil
        }
    }
}
