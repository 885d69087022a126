/// The RFC 8259 number grammar, and exact conversions of number text.
///
/// `number = [ "-" ] int [ frac ] [ exp ]`, `int = "0" / digit1-9 *digit`, `frac = "." 1*digit`,
/// `exp = ("e" / "E") [ "-" / "+" ] 1*digit`. Numbers stay text everywhere in the JSON layer so that
/// `Edm.Decimal` and `Edm.Int64` values round-trip exactly; conversions happen only when asked.
enum JSONNumberGrammar {
    /// Scans a number starting at `start` and returns the index just past it, and whether it is an
    /// integer (no fraction, no exponent). What follows the number is the caller's business.
    ///
    /// - Throws: ``ODataError/Code/syntax`` with the offset of the first byte that breaks the grammar,
    ///   shifted by `offsetBase` (the position of `bytes` in the whole input).
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, offsetBase: Int = 0) throws(ODataError) -> (end: Int, isInteger: Bool) {
        let end = bytes.count
        var i = start
        func byte(_ index: Int) -> UInt8 { index < end ? bytes[index] : 0 }
        func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

        if byte(i) == UInt8(ascii: "-") { i += 1 }
        let first = byte(i)
        guard isDigit(first) else {
            let what = i >= end ? "end of input" : describeJSONByte(first)
            throw .jsonSyntax(i > start ? "expected a digit after '-', found \(what)" : "expected a number, found \(what)", at: offsetBase + i)
        }
        i += 1
        if first == UInt8(ascii: "0") {
            if isDigit(byte(i)) { throw .jsonSyntax("numbers must not have leading zeros", at: offsetBase + i - 1) }
        } else {
            while isDigit(byte(i)) { i += 1 }
        }
        var isInteger = true
        if byte(i) == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard isDigit(byte(i)) else {
                throw .jsonSyntax("expected a digit after the decimal point, found \(found(bytes, i))", at: offsetBase + i)
            }
            while isDigit(byte(i)) { i += 1 }
        }
        if byte(i) | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            if byte(i) == UInt8(ascii: "+") || byte(i) == UInt8(ascii: "-") { i += 1 }
            guard isDigit(byte(i)) else {
                throw .jsonSyntax("expected a digit in the exponent, found \(found(bytes, i))", at: offsetBase + i)
            }
            while isDigit(byte(i)) { i += 1 }
        }
        return (i, isInteger)
    }

    private static func found(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> String {
        index < bytes.count ? describeJSONByte(bytes[index]) : "end of input"
    }

    /// True when `text` is exactly one JSON number.
    static func isValid(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let scanned = try? scan(text, from: 0) else { return false }
        return scanned.end == text.count
    }

    /// The exact `Int64` of integer number text, or nil when the text has a fraction or an exponent
    /// or does not fit in 64 bits. `-0` is 0.
    static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = i < text.count && text[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < text.count else { return nil }
        var result: Int64 = 0
        while i < text.count {
            let digit = text[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulate towards the sign so that Int64.min is reachable.
            let (scaled, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative
                ? scaled.subtractingReportingOverflow(Int64(digit))
                : scaled.addingReportingOverflow(Int64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            result = next
            i += 1
        }
        return result
    }

    /// The nearest `Double` to number text (correctly rounded; out-of-range magnitudes give
    /// infinity or zero, as IEEE 754 says), or nil when the text is not a number.
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard isValid(text) else { return nil }
        if let exact = exactlyScaledDouble(text) { return exact }
        // The standard library's parser is locale-independent and correctly rounded.
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// The powers of ten a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The common case without building a String (every downloaded double comes here): valid
    /// number text with at most 15 significant digits and a decimal exponent within ±22 is an
    /// integer a `Double` holds exactly times or divided by a power of ten it holds exactly, so
    /// one IEEE operation rounds it correctly (Clinger's fast path). Nil for any other text.
    private static func exactlyScaledDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = i < text.count && text[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var inFraction = false
        while i < text.count {
            let byte = text[i]
            if byte == UInt8(ascii: ".") {
                inFraction = true
                i += 1
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if mantissa != 0 || digit != 0 {
                significantDigits += 1
                guard significantDigits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(digit)
            }
            if inFraction { exponent -= 1 }
            i += 1
        }
        if i < text.count {
            // `e` or `E`, an optional sign, digits (the text is valid).
            i += 1
            var exponentNegative = false
            if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                exponentNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            while i < text.count {
                let digit = text[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                written = written * 10 + Int(digit)
                guard written < 1_000 else { return nil }
                i += 1
            }
            exponent += exponentNegative ? -written : written
        }
        var value = Double(mantissa)
        if exponent < 0 {
            guard -exponent < exactPowersOfTen.count else { return nil }
            value /= exactPowersOfTen[-exponent]
        } else {
            guard exponent < exactPowersOfTen.count else { return nil }
            value *= exactPowersOfTen[exponent]
        }
        return negative ? -value : value
    }
}
