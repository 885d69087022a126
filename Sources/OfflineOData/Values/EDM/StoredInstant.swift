/// The stored form of an `Edm.DateTimeOffset` that keeps its offset:
/// `YYYY-MM-DDThh:mm:ss.fffffffZ` in UTC, fixed width (28 bytes), then `+hh:mm` or `-hh:mm` when
/// the value was written with another offset than UTC (`2023-05-14T20:00:00.0000000Z+05:30`).
///
/// The UTC part orders and compares the instants; the `OOD_INSTANT` collation compares only that
/// part, so the same instant in two offsets is equal, as OData says. The offset is there for the
/// date and time functions, which the specification evaluates in the value's own offset
/// (`hour(2023-05-15T01:30:00+05:30)` is 1): `ood_instant_local` and `ood_instant_offset`.
/// Stores made before this form keep UTC only (``StoredColumn/keepsOffset`` is false there).
enum StoredInstant {
    /// Bytes of the UTC part.
    static let utcCount = 28

    /// The stored text of `value`: its UTC form, and its offset when it has one and `keepingOffset`.
    static func text(_ value: TemporalValue, keepingOffset: Bool) -> String {
        let utc = value.canonicalText
        guard keepingOffset, value.offsetMinutes != 0 else { return utc }
        let minutes = abs(value.offsetMinutes)
        let hours = minutes / 60, rest = minutes % 60
        return utc + (value.offsetMinutes < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + ":"
            + (rest < 10 ? "0" : "") + String(rest)
    }

    /// The UTC part of stored text (all of it when it has no offset).
    static func utcPart(_ stored: String) -> Substring {
        stored.utf8.count > utcCount ? Substring(stored.utf8.prefix(utcCount)) : Substring(stored)
    }

    /// The offset in minutes east of UTC; 0 when the text has none or is not of this form.
    static func offsetMinutes(_ stored: UnsafeBufferPointer<UInt8>) -> Int {
        guard stored.count == utcCount + 6, stored[utcCount + 3] == UInt8(ascii: ":") else { return 0 }
        let sign = stored[utcCount]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return 0 }
        func digits(_ at: Int) -> Int? {
            let tens = stored[utcCount + at], ones = stored[utcCount + at + 1]
            guard (48...57).contains(tens), (48...57).contains(ones) else { return nil }
            return Int(tens - 48) * 10 + Int(ones - 48)
        }
        guard let hours = digits(1), let rest = digits(4) else { return 0 }
        let minutes = hours * 60 + rest
        return sign == UInt8(ascii: "-") ? -minutes : minutes
    }

    /// The local date and time of stored text, in its own offset, laid out as the UTC part
    /// (`YYYY-MM-DDThh:mm:ss.fffffff`), so the same `substr` positions read its parts. Text
    /// without an offset, or not of this form, comes back as it is.
    static func localText(_ stored: UnsafeBufferPointer<UInt8>) -> String {
        let whole = String(decoding: stored, as: UTF8.self)
        let offset = offsetMinutes(stored)
        guard offset != 0, let utc = TemporalValue(iso: String(decoding: stored.prefix(utcCount), as: UTF8.self)) else {
            return whole
        }
        var local = TemporalValue(epochMilliseconds: utc.epochSeconds * 1000, offsetMinutes: offset)
        local.ticks = utc.ticks
        local.offsetMinutes = 0
        return String(local.canonicalText.dropLast())
    }

    /// Orders stored texts by their UTC parts only: the `OOD_INSTANT` collation.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
        let left = lhs.prefix(utcCount), right = rhs.prefix(utcCount)
        for (a, b) in zip(left, right) where a != b { return a < b ? -1 : 1 }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
