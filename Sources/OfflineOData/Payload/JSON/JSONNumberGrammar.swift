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
        // The standard library's parser is locale-independent and correctly rounded.
        return Double(String(decoding: text, as: UTF8.self))
    }
}
