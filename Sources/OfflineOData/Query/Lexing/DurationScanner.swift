/// Scans an ISO 8601 day-time duration, `[-]P[nD][T[nH][nM][n[.n]S]]`, as the ABNF's
/// durationValue allows (no years or months).
struct DurationScanner {
    let text: DecodedText
    let end: Int

    @inline(__always)
    private func at(_ index: Int) -> UInt8 { index < end ? text.byte(index) : 0 }

    /// Returns the end of the duration starting at `start`.
    func scan(from start: Int) throws(ODataError) -> Int {
        var index = start
        if at(index) == UInt8(ascii: "-") { index += 1 }
        guard ByteClass.lower(at(index)) == UInt8(ascii: "p") else { throw text.error("a duration starts with 'P'", at: index) }
        index += 1
        var sawPart = false
        if ByteClass.isDigit(at(index)) {
            let digitsEnd = digits(from: index)
            guard ByteClass.lower(at(digitsEnd)) == UInt8(ascii: "d") else {
                throw text.error("only days, hours, minutes and seconds are allowed in a duration", at: index + (digitsEnd > index ? digitsEnd - index : 0))
            }
            index = digitsEnd + 1
            sawPart = true
        }
        if ByteClass.lower(at(index)) == UInt8(ascii: "t") {
            index += 1
            var sawTimePart = false
            for unit in [UInt8(ascii: "h"), UInt8(ascii: "m"), UInt8(ascii: "s")] {
                guard ByteClass.isDigit(at(index)) else { break }
                var digitsEnd = digits(from: index)
                // Only seconds have a fraction (`PT1.5S`), so a point ends hours and minutes too.
                if at(digitsEnd) == UInt8(ascii: ".") {
                    guard ByteClass.isDigit(at(digitsEnd + 1)) else { throw text.error("digits expected after the decimal point", at: digitsEnd + 1) }
                    digitsEnd = digits(from: digitsEnd + 1)
                    guard ByteClass.lower(at(digitsEnd)) == UInt8(ascii: "s") else { throw text.error("only seconds may have a fraction in a duration", at: digitsEnd) }
                }
                let designator = ByteClass.lower(at(digitsEnd))
                if designator == unit {
                    index = digitsEnd + 1
                    sawTimePart = true
                } else if (unit == UInt8(ascii: "h") && (designator == UInt8(ascii: "m") || designator == UInt8(ascii: "s")))
                    || (unit == UInt8(ascii: "m") && designator == UInt8(ascii: "s")) {
                    continue
                } else {
                    throw text.error("invalid duration", at: digitsEnd)
                }
            }
            if !sawTimePart { throw text.error("a time part is expected after 'T'", at: index) }
            sawPart = true
        }
        if !sawPart { throw text.error("an empty duration", at: index) }
        return index
    }

    private func digits(from start: Int) -> Int {
        var index = start
        while ByteClass.isDigit(at(index)) { index += 1 }
        return index
    }
}
