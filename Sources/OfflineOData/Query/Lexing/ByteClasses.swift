/// ASCII byte classes used by the lexers. Bytes of 0x80 and above (UTF-8 sequences) count as
/// letters, so identifiers in any script pass through to the binder.
enum ByteClass {
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @inline(__always)
    static func isIdentifierStart(_ byte: UInt8) -> Bool { isIn(byte, low: 0, high: identifierStartHigh) }

    @inline(__always)
    static func isIdentifierPart(_ byte: UInt8) -> Bool { isIn(byte, low: digitsLow, high: identifierStartHigh) }

    /// Bytes 0x00-0x3F in a class, one bit each: the digits 0x30-0x39.
    private static let digitsLow: UInt64 = 0x03FF_0000_0000_0000
    /// Bytes 0x40-0x7F in a class, one bit each (bit n is byte 0x40 + n): `A`-`Z` (bits 1-26),
    /// `_` (bit 31), `a`-`z` (bits 33-58).
    private static let identifierStartHigh: UInt64 = 0x07FF_FFFE_87FF_FFFE

    /// Whether an ASCII byte's bit is set in the class (`low` for 0x00-0x3F, `high` for 0x40-0x7F);
    /// bytes of 0x80 and above always belong. A shift and a mask instead of a chain of range tests:
    /// the lexers ask this for every byte of every name.
    @inline(__always)
    private static func isIn(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        if byte >= 0x80 { return true }
        let bits = byte < 0x40 ? low : high
        return (bits >> UInt64(byte & 0x3F)) & 1 != 0
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// ASCII lowercase of a byte (others unchanged).
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
