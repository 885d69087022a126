/// One part of a `multipart/mixed` body: its headers and its content.
struct MultipartPart: Equatable {
    var headers: [HTTPHeader]
    var body: [UInt8]

    /// The value of the header `name` (compared without case).
    func header(_ name: String) -> String? {
        let wanted = asciiLowercased(name)
        return headers.last { asciiLowercased($0.name) == wanted }?.value
    }
}

/// Splits `multipart/mixed` bodies (RFC 2046) as OData `$batch` answers use them.
///
/// Services differ in line ends (CRLF as the RFC says, LF from some), so both are accepted; the
/// line break before a delimiter belongs to the delimiter, not to the part. Anything that is not
/// a well-formed body is an ``ODataError/Code/syntax`` error naming what is wrong, never a trap.
enum MultipartBody {
    /// The parts between `--boundary` and `--boundary--`; the preamble and epilogue are ignored.
    static func parts(of body: [UInt8], boundary: String) throws(ODataError) -> [MultipartPart] {
        guard !boundary.isEmpty else { throw ODataError(.syntax, "the multipart body has an empty boundary") }
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [MultipartPart] = []
        var searchFrom = 0
        var partStart: Int? = nil
        while true {
            guard let found = delimiterLine(delimiter, in: body, from: searchFrom) else {
                if partStart == nil {
                    throw ODataError(.syntax, "the multipart body has no delimiter '--\(boundary)'")
                }
                throw ODataError(.syntax, "the multipart body ends before its closing delimiter '--\(boundary)--'")
            }
            if let start = partStart {
                parts.append(try part(Array(body[start..<found.lineStart])))
            }
            var cursor = found.position + delimiter.count
            if cursor + 1 < body.count, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") {
                return parts
            }
            // Transport padding (spaces, tabs) may follow the delimiter before the line break.
            while cursor < body.count, body[cursor] == UInt8(ascii: " ") || body[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            if cursor < body.count, body[cursor] == UInt8(ascii: "\r") { cursor += 1 }
            guard cursor < body.count, body[cursor] == UInt8(ascii: "\n") else {
                throw ODataError(.syntax, "the multipart delimiter '--\(boundary)' at byte \(found.position) is not followed by a line break")
            }
            partStart = cursor + 1
            searchFrom = cursor + 1
        }
    }

    /// Header lines up to the first empty line, then the rest as the content.
    static func splitHeaders(_ bytes: [UInt8]) throws(ODataError) -> (headers: [HTTPHeader], rest: [UInt8]) {
        var headers: [HTTPHeader] = []
        var index = 0
        while true {
            guard let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else {
                // Headers and no content at all: allowed only when nothing but blank space remains.
                let line = trimmed(bytes[index...])
                if line.isEmpty { return (headers, []) }
                headers.append(try header(line))
                return (headers, [])
            }
            let line = trimmed(bytes[index..<newline])
            index = newline + 1
            if line.isEmpty { return (headers, Array(bytes[index...])) }
            headers.append(try header(line))
        }
    }

    /// The `boundary` parameter of a `multipart/...` content type, or nil for other types.
    static func boundary(ofContentType value: String) -> String? {
        let pieces = value.split(separator: ";", omittingEmptySubsequences: false)
        guard let type = pieces.first, asciiLowercased(String(type).trimmingSpaces()).hasPrefix("multipart/") else { return nil }
        for parameter in pieces.dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = asciiLowercased(String(parameter[..<equals]).trimmingSpaces())
            guard name == "boundary" else { continue }
            var text = String(parameter[parameter.index(after: equals)...]).trimmingSpaces()
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text.isEmpty ? nil : text
        }
        return nil
    }

    // MARK: - Pieces

    private static func part(_ bytes: [UInt8]) throws(ODataError) -> MultipartPart {
        let (headers, rest) = try splitHeaders(bytes)
        return MultipartPart(headers: headers, body: rest)
    }

    private static func header(_ line: ArraySlice<UInt8>) throws(ODataError) -> HTTPHeader {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw ODataError(.syntax, "the multipart header line '\(brief(line))' has no ':'")
        }
        return HTTPHeader(String(decoding: trimmed(line[..<colon]), as: UTF8.self),
                          String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self))
    }

    /// The next `delimiter` at the start of a line, with where that line's preceding break starts.
    private static func delimiterLine(_ delimiter: [UInt8], in body: [UInt8], from start: Int) -> (position: Int, lineStart: Int)? {
        var index = start
        while index + delimiter.count <= body.count {
            if index == 0 || body[index - 1] == UInt8(ascii: "\n"), body[index..<(index + delimiter.count)].elementsEqual(delimiter) {
                var lineStart = index
                if lineStart > start, body[lineStart - 1] == UInt8(ascii: "\n") { lineStart -= 1 }
                if lineStart > start, body[lineStart - 1] == UInt8(ascii: "\r") { lineStart -= 1 }
                return (index, lineStart)
            }
            index += 1
        }
        return nil
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 32 || first == 9 || first == 13 || first == 10 { slice = slice.dropFirst() }
        while let last = slice.last, last == 32 || last == 9 || last == 13 || last == 10 { slice = slice.dropLast() }
        return slice
    }

    static func brief(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        return bytes.count > 80 ? text + "..." : text
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
