/// The numeric promotion of URL Conventions §5.1.1: operands of arithmetic and comparison are
/// promoted along Byte/SByte → Int16 → Int32 → Int64 → Decimal → Single → Double.
enum TypePromotion {
    static func numericRank(_ type: PrimitiveType) -> Int? {
        switch type {
        case .byte, .sByte: 0
        case .int16: 1
        case .int32: 2
        case .int64: 3
        case .decimal: 4
        case .single: 5
        case .double: 6
        default: nil
        }
    }

    static func isNumeric(_ type: PrimitiveType) -> Bool { numericRank(type) != nil }

    static func isInteger(_ type: PrimitiveType) -> Bool { (numericRank(type) ?? 9) <= 3 }

    /// The common type of two numeric types.
    static func promote(_ lhs: PrimitiveType, _ rhs: PrimitiveType) -> PrimitiveType? {
        guard let left = numericRank(lhs), let right = numericRank(rhs) else { return nil }
        if left == right { return lhs == rhs ? lhs : .int16 }
        return left > right ? lhs : rhs
    }

    /// Whether values of the two types can be compared with each other (after promotion).
    static func comparable(_ lhs: PrimitiveType, _ rhs: PrimitiveType) -> Bool {
        if lhs == rhs { return true }
        if isNumeric(lhs) && isNumeric(rhs) { return true }
        let instants: Set<PrimitiveType> = [.dateTime, .dateTimeOffset]
        if instants.contains(lhs) && instants.contains(rhs) { return true }
        let times: Set<PrimitiveType> = [.time, .timeOfDay]
        return times.contains(lhs) && times.contains(rhs)
    }
}
