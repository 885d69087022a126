/// Decodes the base64url (and plain base64) text of V4 `binary'...'` literals; padding is optional.
enum Base64 {
    static func decode(_ text: DecodedText, _ start: Int, _ end: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        var index = start
        var padding = 0
        while index < end {
            let byte = text.byte(index)
            index += 1
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = sextet(byte) else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                result.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // A lone sextet (6 bits) cannot encode a byte.
        if bits >= 6 || padding > 2 { return nil }
        return result
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
