/// Validates the body of a JSON string in the reader's input, without decoding it.
///
/// Policies (RFC 8259 §7 and §8.1, chosen strict because the store must not keep text it cannot
/// represent faithfully):
/// - control characters U+0000...U+001F must be escaped; raw ones are an error;
/// - only the escapes `\" \\ \/ \b \f \n \r \t \uXXXX` exist;
/// - `\uXXXX` surrogates must come in high-low pairs; a lone surrogate is an error, not U+FFFD;
/// - raw bytes must be well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing above
///   U+10FFFF); invalid UTF-8 is an error, not replaced.
/// Validation happens once, while reading, so decoding later cannot fail.
enum JSONStringScanner {
    /// Scans from `start` (just after the opening quote) to the closing quote and returns the
    /// quote's index and whether the body holds escapes.
    ///
    /// `input` must be followed by at least 8 readable zero bytes (``JSONInput`` guarantees it): the
    /// 8-byte fast path may read past `count`, and the zero stops every loop at the end.
    static func scan(_ input: UnsafePointer<UInt8>, count: Int, from start: Int) throws(ODataError) -> (end: Int, hasEscapes: Bool) {
        var i = start
        var hasEscapes = false
        while true {
            // Eight plain bytes at a time: none below 0x20, none above 0x7F, no quote, no backslash.
            while i < count {
                let word = UnsafeRawPointer(input + i).loadUnaligned(as: UInt64.self)
                let attention = attentionBits(word)
                if attention != 0 {
                    // The lowest flagged byte is exact (borrows only flag bytes above it): skip
                    // the plain bytes before it at once. Little-endian: byte k is bits 8k...8k+7.
                    i += attention.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            let byte = input[i]
            if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                if i < count { return (i, hasEscapes) }
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                i = try scanEscape(input, count: count, at: i)
                continue
            } else if byte >= 0x80 {
                let length = UTF8Validation.sequenceLength(UnsafeBufferPointer(start: input, count: count), at: i)
                guard length > 0 else { throw .jsonSyntax("invalid UTF-8 (\(describeJSONByte(byte))) in string", at: i) }
                i += length
                continue
            }
            if i >= count { throw .jsonSyntax("unexpected end of input inside a string that starts at offset \(start - 1)", at: count) }
            throw .jsonSyntax("control character U+00\(hexDigits(byte)) must be escaped in a string", at: i)
        }
    }

    /// The high bit of each byte of `word` that is below 0x20, above 0x7F, a quote or a
    /// backslash; bytes above the lowest such byte may be flagged wrongly (a borrow), never it.
    @inline(__always)
    static func attentionBits(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- ones &* n) & ~x & highs }
        let control = hasByteBelow(word, 0x20)
        let quote = hasByteBelow(word ^ (ones &* 0x22), 1)
        let backslash = hasByteBelow(word ^ (ones &* 0x5C), 1)
        return (word & highs) | control | quote | backslash
    }

    /// Validates the escape at `index` (a backslash) and returns the index after it.
    private static func scanEscape(_ input: UnsafePointer<UInt8>, count: Int, at index: Int) throws(ODataError) -> Int {
        let kind = input[index + 1]
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try hexUnit(input, count: count, at: index + 2)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw .jsonSyntax("lone low surrogate \\u\(hex4(unit)) in string", at: index)
            }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return index + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate.
            guard input[index + 6] == UInt8(ascii: "\\") && input[index + 7] == UInt8(ascii: "u"),
                  let low = try? hexUnit(input, count: count, at: index + 8),
                  low >= 0xDC00 && low <= 0xDFFF
            else { throw .jsonSyntax("lone high surrogate \\u\(hex4(unit)) in string (not followed by a low surrogate)", at: index) }
            return index + 12
        default:
            if index + 1 >= count { throw .jsonSyntax("unexpected end of input inside a string escape", at: count) }
            throw .jsonSyntax("invalid escape '\\' followed by \(describeJSONByte(kind)) in string", at: index)
        }
    }

    /// Reads the four hex digits of a `\u` escape. Every read is checked before the next, so the
    /// zero padding stops it at the end of the input.
    static func hexUnit(_ input: UnsafePointer<UInt8>, count: Int, at index: Int) throws(ODataError) -> UInt16 {
        var unit: UInt16 = 0
        for k in 0..<4 {
            let at = index + k
            let byte = input[at]
            guard let value = hexValue(byte) else {
                if at >= count { throw .jsonSyntax("unexpected end of input inside a \\u escape", at: count) }
                throw .jsonSyntax("expected four hex digits after \\u, found \(describeJSONByte(byte))", at: at)
            }
            unit = unit << 4 | UInt16(value)
        }
        return unit
    }

    private static func hex4(_ unit: UInt16) -> String {
        hexDigits(UInt8(truncatingIfNeeded: unit >> 8)) + hexDigits(UInt8(truncatingIfNeeded: unit))
    }
}
