/// A date and time of day with an offset from UTC: the value behind `Edm.DateTimeOffset`, V2
/// `Edm.DateTime`, `Edm.Date` and `Edm.TimeOfDay`.
///
/// The store keeps these values as text in a canonical form whose byte order is the order of the
/// instants (``canonicalText``), so SQLite compares them correctly with no function call and
/// can use an index: `DateTimeOffset` values that differ only in their offset compare equal.
package struct TemporalValue: Sendable, Equatable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int = 0
    package var minute: Int = 0
    package var second: Int = 0
    /// Fractions of a second in units of 100 ns (0 ... 9,999,999), OData's finest precision.
    package var ticks: Int = 0
    /// Minutes east of UTC.
    package var offsetMinutes: Int = 0

    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                ticks: Int = 0, offsetMinutes: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.ticks = ticks
        self.offsetMinutes = offsetMinutes
    }

    // MARK: - Parsing

    /// Parses ISO 8601 as OData writes it: `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.fffffff]]` with an
    /// optional `Z` or `±hh:mm` (no offset means UTC, as V2 `Edm.DateTime` has none). Digits past
    /// the seventh of a fraction are dropped. Nil for anything else or an impossible date.
    package init?(iso text: String) {
        var scanner = DigitScanner(text)
        guard let year = scanner.number(digits: 4), scanner.take("-"),
              let month = scanner.number(digits: 2), scanner.take("-"),
              let day = scanner.number(digits: 2)
        else { return nil }
        self.init(year: year, month: month, day: day)
        if scanner.take("T") || scanner.take("t") {
            guard let hour = scanner.number(digits: 2), scanner.take(":"), let minute = scanner.number(digits: 2) else { return nil }
            self.hour = hour
            self.minute = minute
            if scanner.take(":") {
                guard let second = scanner.number(digits: 2) else { return nil }
                self.second = second
                if scanner.take(".") {
                    guard let ticks = scanner.fraction() else { return nil }
                    self.ticks = ticks
                }
            }
            if scanner.take("Z") || scanner.take("z") {
                offsetMinutes = 0
            } else if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2), scanner.take(":"), let minutes = scanner.number(digits: 2),
                      hours <= 23, minutes <= 59
                else { return nil }
                offsetMinutes = sign * (hours * 60 + minutes)
            }
        }
        guard scanner.isAtEnd, isValid else { return nil }
    }

    /// Parses a time of day, `hh:mm[:ss[.fffffff]]`, on the date 0001-01-01 (UTC).
    package init?(timeOfDay text: String) {
        guard let value = TemporalValue(iso: "0001-01-01T" + text), value.offsetMinutes == 0,
              !text.contains("Z"), !text.contains("+")
        else { return nil }
        self = value
    }

    /// Parses V2 JSON's `/Date(milliseconds)/` or `/Date(milliseconds±minutes)/`. The milliseconds
    /// count from the Unix epoch in UTC; the offset only says where the value was shown.
    package init?(v2JSON text: String) {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        let inner = text.dropFirst(6).dropLast(2)
        var millisecondsText = inner
        var offset = 0
        if let signIndex = inner.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) {
            millisecondsText = inner[..<signIndex]
            let offsetText = inner[inner.index(after: signIndex)...]
            // The offset counts minutes ([MS-ODATA] 2.2.6.3.2); SAP Gateway writes "+0000".
            guard !offsetText.isEmpty, offsetText.allSatisfy(\.isASCIIDigit), let minutes = Int(offsetText),
                  minutes < 24 * 60
            else { return nil }
            offset = inner[signIndex] == "-" ? -minutes : minutes
        }
        guard let milliseconds = Int64(millisecondsText),
              milliseconds > -62_135_596_800_000, milliseconds < 253_402_300_800_000
        else { return nil }
        self.init(epochMilliseconds: milliseconds, offsetMinutes: offset)
    }

    /// The UTC instant `milliseconds` after the Unix epoch, shown at `offsetMinutes`.
    package init(epochMilliseconds milliseconds: Int64, offsetMinutes: Int = 0) {
        let totalSeconds = floorDivide(milliseconds, 1000)
        let localSeconds = totalSeconds + Int64(offsetMinutes) * 60
        let days = floorDivide(localSeconds, 86_400)
        let secondOfDay = Int(localSeconds - days * 86_400)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        self.init(year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60,
                  second: secondOfDay % 60, ticks: Int(milliseconds - totalSeconds * 1000) * 10_000,
                  offsetMinutes: offsetMinutes)
    }

    private var isValid: Bool {
        (1...9999).contains(year) && (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
    }

    // MARK: - Conversions

    /// Seconds from the Unix epoch to this instant (UTC).
    package var epochSeconds: Int64 {
        daysSinceEpoch(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes) * 60
    }

    /// Milliseconds from the Unix epoch to this instant (UTC), as V2 JSON writes it.
    package var epochMilliseconds: Int64 { epochSeconds * 1000 + Int64(ticks / 10_000) }

    /// The same instant in UTC.
    package var utc: TemporalValue {
        guard offsetMinutes != 0 else { return self }
        var result = TemporalValue(epochMilliseconds: epochSeconds * 1000)
        result.ticks = ticks
        return result
    }

    /// `YYYY-MM-DDThh:mm:ss.fffffffZ` in UTC, fixed width: the stored form, ordered as the instants.
    package var canonicalText: String {
        let value = utc
        // Written byte by byte: every downloaded instant passes here.
        return paddedText([(value.year, 4, "-"), (value.month, 2, "-"), (value.day, 2, "T"), (value.hour, 2, ":"),
                           (value.minute, 2, ":"), (value.second, 2, "."), (value.ticks, 7, "Z")])
    }

    /// `YYYY-MM-DD`: the stored and written form of `Edm.Date`.
    package var dateText: String { paddedText([(year, 4, "-"), (month, 2, "-"), (day, 2, nil)]) }

    /// `hh:mm:ss[.fffffff]`, trailing zeros of the fraction dropped: `Edm.TimeOfDay` as written.
    package var timeOfDayText: String {
        "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))" + fractionText
    }

    /// `hh:mm:ss.fffffff`, fixed width: the stored form of `Edm.TimeOfDay`.
    package var canonicalTimeOfDayText: String {
        "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(ticks, 7))"
    }

    /// ISO 8601 as V4 JSON writes a `DateTimeOffset`: in UTC with `Z`, fraction only when not zero.
    package var isoText: String {
        let value = utc
        return "\(value.dateText)T\(pad(value.hour, 2)):\(pad(value.minute, 2)):\(pad(value.second, 2))\(value.fractionText)Z"
    }

    /// V2 JSON: `/Date(ms)/`, with `+hhmm`-style minutes offset when `withOffset` (DateTimeOffset).
    package func v2JSONText(withOffset: Bool) -> String {
        guard withOffset else { return "/Date(\(epochMilliseconds))/" }
        return "/Date(\(epochMilliseconds)+0000)/"
    }

    private var fractionText: String {
        guard ticks > 0 else { return "" }
        var digits = pad(ticks, 7)
        while digits.hasSuffix("0") { digits.removeLast() }
        return "." + digits
    }
}

// MARK: - Calendar arithmetic (proleptic Gregorian)

/// Days from 1970-01-01 to the given date. Works on 400-year eras, which repeat exactly.
func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
    let shiftedYear = Int64(month <= 2 ? year - 1 : year)
    let era = floorDivide(shiftedYear, 400)
    let yearOfEra = shiftedYear - era * 400
    let monthFromMarch = Int64(month > 2 ? month - 3 : month + 9)
    let dayOfYear = (153 * monthFromMarch + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// The date `days` after 1970-01-01: the inverse of ``daysSinceEpoch(year:month:day:)``.
func civilDate(fromDaysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
    let shifted = days + 719_468
    let era = floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    let day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
    let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
    let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    return (year, month, day)
}

func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
}

/// Division rounding towards negative infinity (dates before 1970 have negative day counts).
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

/// Reads fixed-width digit groups and separators from ASCII text.
struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// +1 or -1 for a sign at the current position.
    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<digits {
            let byte = bytes[index + offset]
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        index += digits
        return value
    }

    /// One or more digits of a fraction of a second, as 100 ns ticks (digits past 7 dropped).
    mutating func fraction() -> Int? {
        var ticks = 0
        var count = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            if count < 7 { ticks = ticks * 10 + Int(bytes[index] - 48) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 7) { ticks *= 10 }
        return ticks
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
