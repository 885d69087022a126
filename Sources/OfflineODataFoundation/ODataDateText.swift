import FoundationEssentials
import OfflineOData

/// Reads and writes the forms OData gives instants in JSON, without a formatter (each is a fixed
/// layout): V2's `/Date(1700000000000)/` and `/Date(1700000000000+0060)/`, V4's ISO 8601
/// `2024-05-06T07:08:09.123Z` or `...+02:00`, and a plain date `2024-05-06` (midnight UTC).
///
/// Related OData documentation: <https://docs.oasis-open.org/odata/odata-json-format/v4.01/odata-json-format-v4.01.html#sec_PrimitiveValue>.
enum ODataDateText {
    /// The instant `text` names, or nil when it is none of the forms above.
    static func date(from text: String) -> Date? {
        v2Date(text) ?? isoDate(text)
    }

    /// `/Date(ms)/` with an optional `+mmmm`/`-mmmm` offset in minutes (the instant is the
    /// milliseconds: the offset only says where it was local).
    static func v2Date(_ text: String) -> Date? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        var inner = Substring(text.dropFirst(6).dropLast(2))
        if let sign = inner.dropFirst().lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard Int(inner[inner.index(after: sign)...]) != nil else { return nil }
            inner = inner[..<sign]
        }
        guard let milliseconds = Int64(inner) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// ISO 8601: `YYYY-MM-DD`, or that with `THH:MM[:SS[.fraction]]` and `Z` or `±HH:MM`
    /// (a date and time without an offset is read as UTC, as V2's `Edm.DateTime` means it).
    static func isoDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        guard bytes.count > 10 else { return Date(timeIntervalSince1970: seconds) }
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3_600 + minute * 60)
        var index = 16
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let second = number(bytes, index + 1, 2), second < 61 else { return nil }
            seconds += Double(second)
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                let start = index + 1
                index = start
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard index > start, let fraction = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                seconds += fraction
            }
        }
        guard index < bytes.count else { return Date(timeIntervalSince1970: seconds) }
        if bytes[index] == UInt8(ascii: "Z"), index + 1 == bytes.count { return Date(timeIntervalSince1970: seconds) }
        guard index + 6 == bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
              bytes[index + 3] == UInt8(ascii: ":"),
              let offsetHours = number(bytes, index + 1, 2), let offsetMinutes = number(bytes, index + 4, 2)
        else { return nil }
        let offset = Double(offsetHours * 3_600 + offsetMinutes * 60)
        return Date(timeIntervalSince1970: bytes[index] == UInt8(ascii: "+") ? seconds - offset : seconds + offset)
    }

    /// `date` in the dialect's JSON form: V2 `/Date(ms)/`, V4 ISO 8601 in UTC with milliseconds;
    /// nil for a date no OData form can hold (beyond the years 0001–9999, or not finite).
    static func text(of date: Date, dialect: Dialect) -> String? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        let milliseconds = Int64((seconds * 1000).rounded())
        if dialect == .v2 { return "/Date(\(milliseconds))/" }
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let time = Int(dayMilliseconds)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(time / 3_600_000, 2)):"
            + "\(padded(time / 60_000 % 60, 2)):\(padded(time / 1000 % 60, 2)).\(padded(time % 1000, 3))Z"
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start >= 0, start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = Int(days) + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
