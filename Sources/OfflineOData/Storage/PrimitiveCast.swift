/// OData 4.01 `cast(value, Edm.Type)` on stored values (URL Conventions §5.1.1.11.1), behind the
/// SQL function `ood_cast(value, from, to)`: the translator passes the value's stored form and the
/// two forms' codes as bound parameters. A cast that is not possible gives null, never an error.
///
/// - To `Edm.String`: the value's literal form without quotes or prefix (`true`, `12.5`, a
///   DateTimeOffset in UTC as responses write it, a Duration as `P1DT2H`).
/// - From `Edm.String`: the text read as a literal of the target type (`'12'` to 12; `'12.5'` to an
///   integer type is null: it is not an integer literal).
/// - Between numeric types: integers and decimals exactly, towards zero into integer types; null
///   when the integer part does not fit the target type.
/// - A DateTimeOffset to `Edm.Date`: its date in its own offset (as `date()`).
/// - Other pairs (Boolean to a number, Date to TimeOfDay, ...) are not castable: null.
enum PrimitiveCast {
    /// A primitive type's stored form, as the SQL function's arguments name it.
    enum Form: Int64, Sendable, CaseIterable {
        case string = 1, boolean, byte, sByte, int16, int32, int64, decimal, double, single
        case date, timeOfDay, guid, duration, dateTimeOffset

        /// The range of an integer form; nil for the others.
        var integerRange: ClosedRange<Int64>? {
            switch self {
            case .byte: 0...255
            case .sByte: -128...127
            case .int16: Int64(Int16.min)...Int64(Int16.max)
            case .int32: Int64(Int32.min)...Int64(Int32.max)
            case .int64: Int64.min...Int64.max
            default: nil
            }
        }
    }

    /// `value` (in the stored form of `from`) in the stored form of `to`, or `.null`.
    static func convert(_ value: SQLValue, from: Form, to: Form) -> SQLValue {
        if case .null = value { return .null }
        if from == to { return value }
        if to == .string { return literalText(value, of: from).map(SQLValue.text) ?? .null }
        if let range = to.integerRange {
            if from == .string, case .text(let text) = value, !isIntegerValue(text, of: to) { return .null }
            guard let whole = integer(value, of: from), range.contains(whole) else { return .null }
            return .integer(whole)
        }
        switch to {
        case .decimal:
            return decimal(value, of: from).map { .text($0.description) } ?? .null
        case .double:
            return real(value, of: from).map(SQLValue.real) ?? .null
        case .single:
            // A Single holds magnitudes up to about 3.4e38: a finite double beyond does not fit.
            guard let number = real(value, of: from),
                  !number.isFinite || number.magnitude <= Double(Float.greatestFiniteMagnitude) else { return .null }
            return .real(number)
        case .boolean:
            guard from == .string, case .text(let text) = value else { return .null }
            switch text.lowercased() {
            case "true": return .integer(1)
            case "false": return .integer(0)
            default: return .null
            }
        case .date:
            if from == .dateTimeOffset, case .text(let stored) = value {
                var text = stored
                let local = text.withUTF8 { StoredInstant.localText($0) }
                return .text(String(local.prefix(10)))
            }
            guard let text = stringText(value, from), !text.contains("T"), let date = TemporalValue(iso: text) else { return .null }
            return .text(date.dateText)
        case .timeOfDay:
            guard let text = stringText(value, from), let time = TemporalValue(timeOfDay: text) else { return .null }
            return .text(time.canonicalTimeOfDayText)
        case .guid:
            guard let text = stringText(value, from), isGuid(text) else { return .null }
            return .text(text.lowercased())
        case .duration:
            guard let text = stringText(value, from), let duration = DurationValue(iso: text) else { return .null }
            return .text(duration.seconds.description)
        case .dateTimeOffset:
            guard let text = stringText(value, from), text.contains("T"), let instant = TemporalValue(iso: text) else { return .null }
            return .text(instant.canonicalText)
        default:
            return .null
        }
    }

    /// Whether `text` is the ABNF's value of the integer form `form`: `byteValue` is `1*3DIGIT`
    /// (no sign), `sbyteValue`, `int16Value`, `int32Value` and `int64Value` an optional `+` or `-`
    /// and at most 3, 5, 10 or 19 digits. The range is checked apart.
    static func isIntegerValue(_ text: String, of form: Form) -> Bool {
        let maxDigits: Int
        switch form {
        case .byte, .sByte: maxDigits = 3
        case .int16: maxDigits = 5
        case .int32: maxDigits = 10
        default: maxDigits = 19
        }
        var digits = text.utf8[...]
        if let first = digits.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            guard form != .byte else { return false }
            digits = digits.dropFirst()
        }
        return !digits.isEmpty && digits.count <= maxDigits
            && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The text of a string value; nil for any other form (only strings are read as literals).
    private static func stringText(_ value: SQLValue, _ form: Form) -> String? {
        guard form == .string, case .text(let text) = value else { return nil }
        return text
    }

    /// The literal form of a stored value, without quotes or type prefix.
    static func literalText(_ value: SQLValue, of form: Form) -> String? {
        switch (form, value) {
        case (.boolean, .integer(let flag)): return flag == 0 ? "false" : "true"
        case (_, .integer(let number)) where form.integerRange != nil: return String(number)
        case (.double, .real(let number)), (.single, .real(let number)): return doubleText(number)
        case (.double, .integer(let number)), (.single, .integer(let number)): return doubleText(Double(number))
        case (.decimal, .text(let text)): return ExactDecimal(text)?.description ?? text
        case (.timeOfDay, .text(let text)): return TemporalValue(timeOfDay: text)?.timeOfDayText ?? text
        case (.duration, .text(let seconds)): return ExactDecimal(seconds).map { DurationValue(seconds: $0).isoText }
        case (.dateTimeOffset, .text(let stored)): return TemporalValue(iso: String(StoredInstant.utcPart(stored)))?.isoText
        case (_, .text(let text)): return text
        default: return nil
        }
    }

    /// A double as OData writes it: `INF`, `-INF`, `NaN`, else the shortest text that reads back.
    private static func doubleText(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-INF" : "INF" }
        return "\(number)"
    }

    /// A whole number towards zero; nil when there is none or it exceeds 64 bits.
    private static func integer(_ value: SQLValue, of form: Form) -> Int64? {
        switch (form, value) {
        case (.boolean, _): return nil
        case (_, .integer(let number)) where form.integerRange != nil: return number
        case (.decimal, .text(let text)):
            guard let exact = ExactDecimal(text) else { return nil }
            return Int64((exact.isNegative ? exact.ceiling() : exact.floor()).description)
        case (.double, .real(let number)), (.single, .real(let number)):
            let whole = number.rounded(.towardZero)
            guard whole.isFinite, whole >= -9.223372036854775808e18, whole < 9.223372036854775808e18 else { return nil }
            return Int64(whole)
        case (.string, .text(let text)):
            return Int64(text)
        default:
            return nil
        }
    }

    private static func decimal(_ value: SQLValue, of form: Form) -> ExactDecimal? {
        switch (form, value) {
        case (.boolean, _): return nil
        case (_, .integer(let number)) where form.integerRange != nil: return ExactDecimal(number)
        case (.double, .real(let number)), (.single, .real(let number)):
            return number.isFinite ? ExactDecimal("\(number)") : nil
        case (.string, .text(let text)):
            return isNumberText(text) ? ExactDecimal(text) : nil
        default:
            return nil
        }
    }

    private static func real(_ value: SQLValue, of form: Form) -> Double? {
        switch (form, value) {
        case (.boolean, _): return nil
        case (_, .integer(let number)) where form.integerRange != nil: return Double(number)
        case (.double, .real(let number)), (.single, .real(let number)): return number
        case (.decimal, .text(let text)): return Double(text)
        case (.string, .text(let text)):
            switch text {
            case "INF": return .infinity
            case "-INF": return -.infinity
            case "NaN": return .nan
            default: return isNumberText(text) ? Double(text) : nil
            }
        default:
            return nil
        }
    }

    /// The ABNF's `decimalValue` without `nanInfinity`: `["+"/"-"] 1*DIGIT ["." 1*DIGIT]
    /// ["e" ["+"/"-"] 1*DIGIT]` (`e` either case, as ABNF strings are). Swift's `Double` would
    /// also read `.5`, hexadecimal, `inf` and `nan`, which are no OData values.
    static func isNumberText(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func sign() { if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() } }
        func digits() -> Bool {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count > 0
        }
        sign()
        guard digits() else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() else { return false }
        }
        if let first = bytes.first, first | 0x20 == UInt8(ascii: "e") {
            bytes = bytes.dropFirst()
            sign()
            guard digits() else { return false }
        }
        return bytes.isEmpty
    }

    /// `8-4-4-4-12` hexadecimal digits.
    private static func isGuid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f")) else {
                    return false
                }
            }
        }
        return true
    }
}
