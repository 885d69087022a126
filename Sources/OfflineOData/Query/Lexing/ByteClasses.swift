/// ASCII byte classes used by the lexers. Bytes of 0x80 and above (UTF-8 sequences) count as
/// letters, so identifiers in any script pass through to the binder.
enum ByteClass {
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    @inline(__always)
    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    @inline(__always)
    static func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// ASCII lowercase of a byte (others unchanged).
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
