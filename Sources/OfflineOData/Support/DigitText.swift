/// Digits as text: a hex digit read, decimal numbers zero-padded. One definition for the URL
/// lexer, the JSON reader, the temporal values and the clock.

/// The value of an ASCII hex digit, or nil.
@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Zero-padded numbers, each followed by its separator, as one string built in place.
/// Negative numbers (never in valid values) fall back to ``pad(_:_:)``.
func paddedText(_ parts: [(value: Int, width: Int, separator: Unicode.Scalar?)]) -> String {
    guard parts.allSatisfy({ $0.value >= 0 }) else {
        return parts.map { pad($0.value, $0.width) + ($0.separator.map { String(Character($0)) } ?? "") }.joined()
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for part in parts {
        var digits = 0
        var rest = part.value
        repeat { digits += 1; rest /= 10 } while rest > 0
        if digits < part.width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: part.width - digits)) }
        let start = bytes.count
        rest = part.value
        for _ in 0..<digits { bytes.append(0) }
        var index = bytes.count - 1
        while index >= start {
            bytes[index] = UInt8(48 + rest % 10)
            rest /= 10
            index -= 1
        }
        if let separator = part.separator { bytes.append(UInt8(ascii: separator)) }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// `value` in decimal, left-padded with zeros to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}
