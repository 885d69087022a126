/// Well-formed UTF-8, as the Unicode Standard's table 3-7 defines it.
enum UTF8Validation {
    /// The length (2...4) of the well-formed multi-byte sequence that starts at `index`, or 0 when
    /// the bytes there are not one (a stray continuation byte, an overlong form, an encoded
    /// surrogate, a value above U+10FFFF, or a sequence cut short by the end of `bytes`).
    static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        guard index >= 0 && index < bytes.count else { return 0 }
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF // allowed range of the second byte
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard bytes.count - index >= length else { return 0 }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return 0 }
        for k in 2..<max(length, 2) where bytes[index + k] & 0xC0 != 0x80 { return 0 }
        return length
    }
}
