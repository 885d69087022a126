/// How a column's JSON value becomes its stored value on the download's hot path, straight from
/// the token's bytes: no ``JSONValue``, no String for numbers, no date parsing into parts.
///
/// Only the common, unambiguous shapes take it (a V4 number for an integer column, `...Z` for an
/// instant); anything else, and every other type, goes through ``EDMValueCodec``, which gives
/// the same stored value (tests compare the two).
enum IngestForm: Equatable {
    case text
    case integer(ClosedRange<Int64>)
    case boolean
    case double
    /// `Edm.DateTimeOffset`: `YYYY-MM-DDThh:mm:ss[.f{1,7}]Z`.
    case instant
    /// `Edm.Date`: `YYYY-MM-DD`.
    case date
    /// `Edm.Decimal` written as its canonical text already (`-12.5`, `0.05`, `100`).
    case decimal
    case general

    init(_ column: StoredColumn) {
        guard case .primitive(let type) = column.content else {
            self = .general
            return
        }
        switch type {
        case .string: self = .text
        case .byte: self = .integer(0...255)
        case .sByte: self = .integer(-128...127)
        case .int16: self = .integer(Int64(Int16.min)...Int64(Int16.max))
        case .int32: self = .integer(Int64(Int32.min)...Int64(Int32.max))
        case .int64: self = .integer(Int64.min...Int64.max)
        case .boolean: self = .boolean
        case .double, .single: self = .double
        case .dateTimeOffset: self = .instant
        case .date: self = .date
        case .decimal: self = .decimal
        default: self = .general
        }
    }

    /// The stored form of an instant in UTC (`YYYY-MM-DDThh:mm:ss.fffffffZ`), or nil when the
    /// text is not a valid one of that shape.
    static func instant(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let count = bytes.count
        guard count >= 20, count <= 28, bytes[count - 1] == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), isDate(bytes),
              let hour = number(bytes, 11, 2), hour < 24, let minute = number(bytes, 14, 2), minute < 60,
              let second = number(bytes, 17, 2), second < 60
        else { return nil }
        if count > 20 {
            // A fraction of 1 to 7 digits after the point.
            guard bytes[19] == UInt8(ascii: "."), count >= 22 else { return nil }
            for index in 20..<(count - 1) where !isDigit(bytes[index]) { return nil }
        }
        // Written straight into the string's storage: every downloaded instant passes here.
        return String(unsafeUninitializedCapacity: 28) { text in
            for index in 0..<19 { text[index] = bytes[index] }
            text[19] = UInt8(ascii: ".")
            for index in 20..<27 { text[index] = index < count - 1 ? bytes[index] : UInt8(ascii: "0") }
            text[27] = UInt8(ascii: "Z")
            return 28
        }
    }

    /// The text itself when it is a decimal in the stored (canonical) form: an optional minus, an
    /// integer part without leading zeros, and a fraction that does not end in zero; not `-0`.
    /// Else nil: exponents, `+`, `1.50` and the like go through ``ExactDecimal``.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        let integerStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        let integerCount = index - integerStart
        guard integerCount > 0, integerCount == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var nonZero = bytes[integerStart..<index].contains { $0 != UInt8(ascii: "0") }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "."), index + 1 < bytes.count else { return nil }
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                if bytes[index] != UInt8(ascii: "0") { nonZero = true }
                index += 1
            }
            guard index == bytes.count, bytes[index - 1] != UInt8(ascii: "0") else { return nil }
        }
        guard nonZero || !negative else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text itself when it is a valid `YYYY-MM-DD`; else nil.
    static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count == 10, isDate(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-MM-DD` at the start of `bytes`, a real day (leap years kept), year 1 or later.
    private static func isDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(bytes, 0, 4), year >= 1, let month = number(bytes, 5, 2), (1...12).contains(month),
              let day = number(bytes, 8, 2), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ width: Int) -> Int? {
        var value = 0
        for index in start..<(start + width) {
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
