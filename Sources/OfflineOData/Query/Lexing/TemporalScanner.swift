/// Scans the date, time and GUID literal forms of the ABNF digit by digit, so that an invalid
/// value (`24:00`, month `13`) is reported at the first digit that cannot belong to it.
struct TemporalScanner {
    let text: DecodedText
    let end: Int

    @inline(__always)
    func at(_ index: Int) -> UInt8 { index < end ? text.byte(index) : 0 }

    /// `[-]YYYY-MM-DD`; returns the end.
    func scanDate(from start: Int) throws(ODataError) -> Int {
        var index = start
        if at(index) == UInt8(ascii: "-") { index += 1 }
        let yearStart = index
        while ByteClass.isDigit(at(index)) { index += 1 }
        let yearDigits = index - yearStart
        if yearDigits < 4 { throw text.error("a year has at least four digits", at: index) }
        if yearDigits > 4 && at(yearStart) == UInt8(ascii: "0") {
            throw text.error("a year of more than four digits cannot start with 0", at: yearStart)
        }
        index = try expect(UInt8(ascii: "-"), at: index)
        index = try twoDigits(at: index, first: 0x30...0x31, second: { first in first == 0x30 ? 0x31...0x39 : 0x30...0x32 }, what: "month")
        index = try expect(UInt8(ascii: "-"), at: index)
        index = try twoDigits(at: index, first: 0x30...0x33, second: { first in
            first == 0x30 ? 0x31...0x39 : first == 0x33 ? 0x30...0x31 : 0x30...0x39
        }, what: "day")
        return index
    }

    /// `HH:MM[:SS[.fffffff]]`; returns the end. `allowLeapSecond` admits second 60 (DateTimeOffset).
    func scanTimeOfDay(from start: Int, allowLeapSecond: Bool) throws(ODataError) -> Int {
        var index = try twoDigits(at: start, first: 0x30...0x32, second: { first in first == 0x32 ? 0x30...0x33 : 0x30...0x39 }, what: "hour")
        index = try expect(UInt8(ascii: ":"), at: index)
        index = try twoDigits(at: index, first: 0x30...0x35, second: { _ in 0x30...0x39 }, what: "minute")
        guard at(index) == UInt8(ascii: ":") else { return index }
        index += 1
        if allowLeapSecond && at(index) == UInt8(ascii: "6") && at(index + 1) == UInt8(ascii: "0") {
            index += 2
        } else {
            index = try twoDigits(at: index, first: 0x30...0x35, second: { _ in 0x30...0x39 }, what: "second")
        }
        guard at(index) == UInt8(ascii: ".") else { return index }
        index += 1
        let fractionStart = index
        while ByteClass.isDigit(at(index)) { index += 1 }
        if index == fractionStart { throw text.error("digits expected after '.'", at: index) }
        return index
    }

    /// `date T time (Z | ±HH:MM)`; returns the end.
    func scanDateTimeOffset(from start: Int) throws(ODataError) -> Int {
        var index = try scanDate(from: start)
        guard ByteClass.lower(at(index)) == UInt8(ascii: "t") else { throw text.error("'T' expected", at: index) }
        index = try scanTimeOfDay(from: index + 1, allowLeapSecond: true)
        let zone = at(index)
        if ByteClass.lower(zone) == UInt8(ascii: "z") { return index + 1 }
        guard zone == UInt8(ascii: "+") || zone == UInt8(ascii: "-") else {
            throw text.error("time zone 'Z' or '+hh:mm' expected", at: index)
        }
        index = try twoDigits(at: index + 1, first: 0x30...0x32, second: { first in first == 0x32 ? 0x30...0x33 : 0x30...0x39 }, what: "hour")
        index = try expect(UInt8(ascii: ":"), at: index)
        return try twoDigits(at: index, first: 0x30...0x35, second: { _ in 0x30...0x39 }, what: "minute")
    }

    /// `8-4-4-4-12` hexadecimal digits; returns the end.
    func scanGuid(from start: Int) throws(ODataError) -> Int {
        var index = start
        for (group, length) in [8, 4, 4, 4, 12].enumerated() {
            if group > 0 { index = try expect(UInt8(ascii: "-"), at: index) }
            for _ in 0..<length {
                guard ByteClass.isHexDigit(at(index)) else { throw text.error("hexadecimal digit expected in GUID", at: index) }
                index += 1
            }
        }
        return index
    }

    /// Whether a GUID starts at `start`: eight hex digits, '-', four hex digits, '-'.
    func looksLikeGuid(at start: Int) -> Bool {
        for offset in 0..<8 where !ByteClass.isHexDigit(at(start + offset)) { return false }
        guard at(start + 8) == UInt8(ascii: "-") else { return false }
        for offset in 9..<13 where !ByteClass.isHexDigit(at(start + offset)) { return false }
        return at(start + 13) == UInt8(ascii: "-")
    }

    private func expect(_ byte: UInt8, at index: Int) throws(ODataError) -> Int {
        guard at(index) == byte else { throw text.error("'\(Character(Unicode.Scalar(byte)))' expected", at: index) }
        return index + 1
    }

    private func twoDigits(at index: Int, first: ClosedRange<UInt8>, second: (UInt8) -> ClosedRange<UInt8>, what: String) throws(ODataError) -> Int {
        let high = at(index)
        guard first.contains(high) else { throw text.error("invalid \(what)", at: index) }
        guard second(high).contains(at(index + 1)) else { throw text.error("invalid \(what)", at: index + 1) }
        return index + 2
    }
}
