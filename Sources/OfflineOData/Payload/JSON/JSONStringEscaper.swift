/// Writes string values as JSON string literals.
///
/// Escapes exactly what RFC 8259 requires: `"` and `\` as `\"` and `\\`; the control characters
/// U+0000...U+001F as `\b \f \n \r \t` or `\u00xx`. Everything else, `/` and non-ASCII included, is
/// written as raw UTF-8 (shorter, and what OData services send).
enum JSONStringEscaper {
    /// Appends `"…"` for the UTF-8 text `text`, which must be well-formed (Swift strings are).
    /// Unescaped runs are copied in one piece.
    @inline(__always)
    static func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var i = 0
        let count = text.count
        while i < count {
            let byte = text[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                i += 1
                continue
            }
            if runStart < i { output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<i])) }
            appendEscape(byte, to: &output)
            i += 1
            runStart = i
        }
        if runStart < count { output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<count])) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `"…"` for bytes that should be UTF-8 but may not be (text from C or SQLite): each
    /// ill-formed sequence is written as U+FFFD, so the output is always valid JSON.
    static func appendQuotedRepairing(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var i = 0
        var allValid = true
        while i < text.count {
            if text[i] < 0x80 { i += 1; continue }
            let length = UTF8Validation.sequenceLength(text, at: i)
            if length == 0 { allValid = false; break }
            i += length
        }
        if allValid { return appendQuoted(text, to: &output) }
        // Rare: repair through String, which replaces each ill-formed sequence with U+FFFD.
        var repaired = String(decoding: text, as: UTF8.self)
        repaired.withUTF8 { appendQuoted($0, to: &output) }
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                       hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
