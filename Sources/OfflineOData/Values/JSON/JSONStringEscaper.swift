/// Writes string values as JSON string literals.
///
/// Escapes exactly what RFC 8259 requires: `"` and `\` as `\"` and `\\`; the control characters
/// U+0000...U+001F as `\b \f \n \r \t` or `\u00xx` (lower-case hex, as Python writes them).
/// Everything else, `/` and non-ASCII included, is written as raw UTF-8 (shorter, and what OData
/// services send).
enum JSONStringEscaper {
    /// Text longer than this is escaped a segment at a time, so that the room reserved for the
    /// worst case (six bytes per byte) stays small whatever the length of the string.
    static let segmentLength = 4096

    /// Writes `"…"` for the UTF-8 text `text` (at most ``segmentLength`` bytes) at `output`, which
    /// has room for `6 * text.count + 2` bytes, and returns the bytes written.
    @inline(__always)
    static func writeQuoted(_ text: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) -> Int {
        output[0] = UInt8(ascii: "\"")
        let written = 1 &+ writeEscaped(text, to: output + 1)
        output[written] = UInt8(ascii: "\"")
        return written &+ 1
    }

    /// Writes the escaped form of `text` (no quotes) at `output`, which has room for
    /// `6 * text.count` bytes, and returns the bytes written. Unescaped runs are copied in one piece.
    /// Escaping is byte by byte, so a segment may end inside a multi-byte UTF-8 sequence.
    @inline(__always)
    static func writeEscaped(_ text: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) -> Int {
        guard let source = text.baseAddress else { return 0 }
        var o = 0
        var runStart = 0
        var i = 0
        let count = text.count
        while i < count {
            // Eight bytes at a time while none of them needs escaping.
            while count &- i >= 8 && !needsEscape(UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)) {
                i &+= 8
            }
            if i >= count { break }
            let byte = source[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            (output + o).update(from: source + runStart, count: i - runStart)
            o += i - runStart
            o += writeEscape(byte, to: output + o)
            i += 1
            runStart = i
        }
        (output + o).update(from: source + runStart, count: count - runStart)
        return o + count - runStart
    }

    /// True when some byte of `word` is below 0x20, a quote or a backslash.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // The classic "has a byte below n" test: exact about whether any byte is, which is all we ask.
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- ones &* n) & ~x & highs }
        return hasByteBelow(word, 0x20) | hasByteBelow(word ^ (ones &* 0x22), 1) | hasByteBelow(word ^ (ones &* 0x5C), 1) != 0
    }

    /// True when `text` is well-formed UTF-8 (text from C or SQLite may not be).
    static func isWellFormedUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        var i = 0
        while i < text.count {
            // ASCII eight bytes at a time.
            while text.count &- i >= 8 && UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i &+= 8
            }
            if i >= text.count { break }
            if text[i] < 0x80 {
                i += 1
                continue
            }
            let length = UTF8Validation.sequenceLength(text, at: i)
            if length == 0 { return false }
            i += length
        }
        return true
    }

    private static func writeEscape(_ byte: UInt8, to output: UnsafeMutablePointer<UInt8>) -> Int {
        output[0] = UInt8(ascii: "\\")
        let short: UInt8? = switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        default: nil
        }
        if let short {
            output[1] = short
            return 2
        }
        // byte < 0x20 here: \u00 then two hex digits.
        output[1] = UInt8(ascii: "u")
        output[2] = UInt8(ascii: "0")
        output[3] = UInt8(ascii: "0")
        output[4] = byte >> 4 == 0 ? UInt8(ascii: "0") : UInt8(ascii: "1")
        let low = byte & 0xF
        output[5] = low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10
        return 6
    }
}
