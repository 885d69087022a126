/// Converts property values between OData JSON (V2 or V4) and the form the store keeps them in
/// (``StorageForm``): the one place that knows both.
///
/// Reading accepts what services really send: V2 sends `Edm.Int64` and `Edm.Decimal` as strings
/// and dates as `/Date(ms)/`; V4 sends numbers (or strings under `IEEE754Compatible=true`) and ISO
/// text. Writing produces each dialect's canonical form, so the offline store answers in the same
/// shapes as the service.
enum EDMValueCodec {
    // MARK: - JSON to stored

    /// The stored value of `value`, a JSON property value of `column`.
    ///
    /// - Throws: ``ODataError/Code/semantic`` when the value does not fit the column's type; the
    ///   message names the property path and the value.
    static func storedValue(fromJSON value: JSONValue, column: StoredColumn, dialect: Dialect) throws(ODataError) -> SQLValue {
        if value.isNull { return .null }
        switch column.content {
        case .json:
            return .text(String(decoding: value.serialized(), as: UTF8.self))
        case .enumeration:
            if let text = value.stringValue { return .text(text) }
            if let number = value.numberValue { return .text(number.text) }
            throw mismatch(value, column, "an enum member name")
        case .primitive(let type):
            return try storedPrimitive(value, type: type, column: column)
        }
    }

    private static func storedPrimitive(_ value: JSONValue, type: PrimitiveType, column: StoredColumn) throws(ODataError) -> SQLValue {
        switch type {
        case .boolean:
            if let flag = value.boolValue { return .integer(flag ? 1 : 0) }
            if let text = value.stringValue, text == "true" || text == "false" { return .integer(text == "true" ? 1 : 0) }
            throw mismatch(value, column, "a boolean")
        case .byte, .sByte, .int16, .int32, .int64:
            guard let integer = integerValue(value) else { throw mismatch(value, column, "an integer") }
            guard fits(integer, type) else { throw mismatch(value, column, "a value in the range of \(type.rawValue)") }
            return .integer(integer)
        case .double, .single:
            if let number = value.numberValue { return .real(number.doubleValue) }
            if let text = value.stringValue {
                switch text {
                case "INF": return .real(.infinity)
                case "-INF": return .real(-.infinity)
                // Bound as the text 'NaN' (StoredReal): SQLite would make a NaN REAL null.
                case "NaN": return .real(.nan)
                default: if let number = JSONNumber(text) { return .real(number.doubleValue) }
                }
            }
            throw mismatch(value, column, "a number")
        case .decimal:
            let text = value.numberValue?.text ?? value.stringValue ?? ""
            guard let decimal = ExactDecimal(text) else {
                throw mismatch(value, column, "a decimal number of at most \(ExactDecimal.longestDigits) digits")
            }
            if let limit = decimalLimit(of: column), !limit.fits(decimal) { throw mismatch(value, column, limit.description) }
            return .text(decimal.description)
        case .string:
            guard let text = value.stringValue else { throw mismatch(value, column, "a string") }
            return .text(text)
        case .guid:
            guard let text = value.stringValue, isGuid(text) else { throw mismatch(value, column, "a GUID") }
            return .text(text.lowercased())
        case .binary:
            guard let text = value.stringValue, let bytes = Base64Codec.decode(text.utf8) else {
                throw mismatch(value, column, "base64 text")
            }
            return .blob(bytes)
        case .date:
            guard let text = value.stringValue, text.utf8.count == 10, let date = TemporalValue(iso: text) else {
                throw mismatch(value, column, "a date (YYYY-MM-DD)")
            }
            return .text(date.dateText)
        case .dateTimeOffset, .dateTime:
            guard let text = value.stringValue,
                  let instant = TemporalValue(v2JSON: text) ?? TemporalValue(iso: text)
            else { throw mismatch(value, column, "a date and time") }
            return .text(StoredInstant.text(instant, keepingOffset: column.keepsOffset))
        case .timeOfDay, .time:
            guard let text = value.stringValue, let time = timeOfDay(text) else { throw mismatch(value, column, "a time of day") }
            return .text(time.canonicalTimeOfDayText)
        case .duration:
            guard let text = value.stringValue, let duration = DurationValue(iso: text, allowingPlus: true) else {
                throw mismatch(value, column, "a duration (P1DT2H)")
            }
            return .text(duration.seconds.description)
        default:
            // Geo values, streams and the like are kept as their JSON.
            return .text(String(decoding: value.serialized(), as: UTF8.self))
        }
    }

    // MARK: - Stored to JSON

    /// Writes the stored `value` of `column` as the property value the dialect's JSON uses.
    static func write(_ value: SQLValue, column: StoredColumn, dialect: Dialect, to writer: inout JSONWriter) throws(ODataError) {
        if value == .null {
            writer.writeNull()
            return
        }
        switch column.content {
        case .json:
            guard case .text(let text) = value else { throw corrupt(column) }
            writer.writeRaw(Array(text.utf8))
        case .enumeration:
            guard case .text(let text) = value else { throw corrupt(column) }
            writer.writeString(text)
        case .primitive(let type):
            try writePrimitive(value, type: type, column: column, dialect: dialect, to: &writer)
        }
    }

    private static func writePrimitive(_ value: SQLValue, type: PrimitiveType, column: StoredColumn, dialect: Dialect,
                                       to writer: inout JSONWriter) throws(ODataError) {
        switch (type, value) {
        case (.boolean, .integer(let flag)):
            writer.writeBool(flag != 0)
        case (.int64, .integer(let integer)) where dialect == .v2:
            writer.writeString(String(integer))
        case (.byte, .integer(let integer)), (.sByte, .integer(let integer)), (.int16, .integer(let integer)),
             (.int32, .integer(let integer)), (.int64, .integer(let integer)):
            writer.writeNumber(integer)
        case (.double, .real(let number)), (.single, .real(let number)):
            if number.isFinite {
                try writer.writeNumber(number)
            } else {
                writer.writeString(number > 0 ? "INF" : "-INF")
            }
        case (.double, .text(let text)), (.single, .text(let text)):
            // A stored NaN (StoredReal); OData JSON writes NaN, INF and -INF as strings.
            guard StoredReal.special(text) != nil else { throw corrupt(column) }
            writer.writeString(text)
        case (.double, .integer(let integer)), (.single, .integer(let integer)):
            writer.writeNumber(integer)
        case (.decimal, .text(let text)):
            let shown = withScale(text, column.property.facets.scale)
            if dialect == .v2 {
                writer.writeString(shown)
            } else {
                try writer.writeNumber(text: shown)
            }
        case (.decimal, .integer(let integer)):
            dialect == .v2 ? writer.writeString(String(integer)) : writer.writeNumber(integer)
        case (.string, .text(let text)), (.guid, .text(let text)), (.date, .text(let text)):
            writer.writeString(text)
        case (.binary, .blob(let bytes)):
            writer.writeString(Base64Codec.encode(bytes, urlSafe: dialect == .v4))
        case (.dateTimeOffset, .text(let text)), (.dateTime, .text(let text)):
            guard let instant = TemporalValue(iso: String(StoredInstant.utcPart(text))) else { throw corrupt(column) }
            if dialect == .v2 {
                writer.writeString(instant.v2JSONText(withOffset: type == .dateTimeOffset))
            } else {
                writer.writeString(instant.isoText)
            }
        case (.timeOfDay, .text(let text)), (.time, .text(let text)):
            guard let time = TemporalValue(timeOfDay: text) else { throw corrupt(column) }
            writer.writeString(dialect == .v2 ? v2Time(time) : time.timeOfDayText)
        case (.duration, .text(let text)):
            guard let seconds = ExactDecimal(text) else { throw corrupt(column) }
            writer.writeString(DurationValue(seconds: seconds).isoText)
        case (_, .text(let text)) where StorageForm.of(type) == .opaqueJSON:
            writer.writeRaw(Array(text.utf8))
        default:
            throw corrupt(column)
        }
    }

    // MARK: - Helpers

    private static func integerValue(_ value: JSONValue) -> Int64? {
        if let number = value.numberValue { return number.int64Value }
        if let text = value.stringValue { return Int64(text) }
        return nil
    }

    private static func fits(_ value: Int64, _ type: PrimitiveType) -> Bool {
        switch type {
        case .byte: (0...255).contains(value)
        case .sByte: (-128...127).contains(value)
        case .int16: Int64(Int16.min)...Int64(Int16.max) ~= value
        case .int32: Int64(Int32.min)...Int64(Int32.max) ~= value
        default: true
        }
    }

    /// `8-4-4-4-12` hexadecimal digits.
    static func isGuid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)
                guard isHex else { return false }
            }
        }
        return true
    }

    /// A time of day from V4 `hh:mm:ss` or V2 `PT13H20M00S` (a duration below a day).
    private static func timeOfDay(_ text: String) -> TemporalValue? {
        if let time = TemporalValue(timeOfDay: text) { return time }
        guard let duration = DurationValue(iso: text, allowingPlus: true), !duration.seconds.isNegative,
              duration.seconds < ExactDecimal(86_400)
        else { return nil }
        let whole = Int(duration.seconds.truncated().description) ?? 0
        let fraction = duration.seconds - duration.seconds.truncated()
        let ticks = Int((fraction * ExactDecimal(10_000_000)).truncated().description) ?? 0
        return TemporalValue(year: 1, month: 1, day: 1, hour: whole / 3600, minute: whole / 60 % 60,
                             second: whole % 60, ticks: ticks)
    }

    /// V2 JSON's `Edm.Time`: `PT13H20M05S`.
    private static func v2Time(_ time: TemporalValue) -> String {
        var text = "PT\(pad(time.hour, 2))H\(pad(time.minute, 2))M\(pad(time.second, 2))"
        if time.ticks > 0 {
            var digits = pad(time.ticks, 7)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "S"
    }

    /// Decimal text shown with the property's scale (`12.5` as `12.50` for `Scale="2"`).
    private static func withScale(_ text: String, _ scale: Facets.Scale?) -> String {
        guard case .digits(let digits) = scale, digits > 0, digits <= 38 else { return text }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        guard fraction.count < digits else { return text }
        return String(parts[0]) + "." + fraction + String(repeating: "0", count: digits - fraction.count)
    }

    /// What a decimal column's facets allow: at most `precision` significant digits, of them at
    /// most `scale` after the point when the scale is a number. Nil when no precision is declared.
    struct DecimalLimit: CustomStringConvertible {
        let precision: Int
        let scale: Int?

        func fits(_ value: ExactDecimal) -> Bool {
            guard let scale else { return value.integerDigits + value.fractionDigits <= precision }
            return value.fractionDigits <= scale && value.integerDigits <= precision - scale
        }

        var description: String {
            "a decimal within Precision=\(precision)" + (scale.map { ", Scale=\($0)" } ?? "")
        }
    }

    static func decimalLimit(of column: StoredColumn) -> DecimalLimit? {
        guard let precision = column.property.facets.precision, precision > 0 else { return nil }
        switch column.property.facets.scale {
        case .digits(let scale)?: return scale <= precision ? DecimalLimit(precision: precision, scale: scale) : nil
        case .variable?, .floating?: return DecimalLimit(precision: precision, scale: nil)
        // No Scale: V4 says 0, V2 leaves it open; services differ, so only the precision is held.
        case nil: return DecimalLimit(precision: precision, scale: nil)
        }
    }

    private static func mismatch(_ value: JSONValue, _ column: StoredColumn, _ expected: String) -> ODataError {
        var shown = String(decoding: value.serialized(), as: UTF8.self)
        if shown.count > 60 { shown = String(shown.prefix(57)) + "..." }
        return ODataError(.semantic, "property '\(column.name)' expects \(expected), not \(shown)")
    }

    private static func corrupt(_ column: StoredColumn) -> ODataError {
        ODataError(.storage, "the stored value of '\(column.name)' does not have its type's form")
    }
}
