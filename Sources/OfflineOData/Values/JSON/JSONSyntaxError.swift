extension ODataError {
    /// A malformed-JSON error: code ``ODataError/Code/syntax`` with the byte offset of the fault in
    /// the input (counting a leading byte order mark, if any). The offset is in ``ODataError/offset``
    /// and ``ODataError/description`` appends it, so messages do not repeat it.
    static func jsonSyntax(_ message: String, at offset: Int) -> ODataError {
        ODataError(.syntax, message, offset: offset)
    }
}

/// How an input byte is named in error messages: `'x'` when printable ASCII, `byte 0xC3` otherwise.
func describeJSONByte(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + hexDigits(byte)
}

/// Two upper-case hex digits, for messages and for `\u00XX` escapes.
func hexDigits(_ byte: UInt8) -> String {
    let digits: [Character] = Array("0123456789ABCDEF")
    return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}
