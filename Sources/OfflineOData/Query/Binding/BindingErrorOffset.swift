extension ODataError {
    /// The binder reports offsets in UTF-8 bytes of the URL (its syntax tree's ``SourceRange``s);
    /// callers hold the text and convert them to characters (Unicode scalars), as the parser does,
    /// so a URL with raw non-ASCII text underlines the right place.
    package func convertingByteOffset(in url: String) -> ODataError {
        guard let offset else { return self }
        var characters = 0
        var bytes = 0
        for byte in url.utf8 {
            guard bytes < offset else { break }
            if byte & 0xC0 != 0x80 { characters += 1 }
            bytes += 1
        }
        var converted = self
        converted.offset = characters + max(0, offset - bytes)
        return converted
    }
}
