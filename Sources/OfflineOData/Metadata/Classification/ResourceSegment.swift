/// One segment of a resource path as the URL parser hands it over, with no model attached:
/// `Products(1)` is `name: "Products", keyPredicate: "1", hasParentheses: true`.
///
/// The classifier takes these so that it does not depend on the URL parser, which is written
/// separately; ``ResourcePathSplitter`` makes them from a plain path for everyone else.
package struct ResourceSegment: Sendable, Hashable {
    package var name: String
    /// The raw text inside `(...)` (a key predicate or an operation's parameters), nil without parentheses.
    package var keyPredicate: String?
    package var hasParentheses: Bool

    package init(name: String, keyPredicate: String? = nil, hasParentheses: Bool? = nil) {
        self.name = name
        self.keyPredicate = keyPredicate
        self.hasParentheses = hasParentheses ?? (keyPredicate != nil)
    }
}

/// Splits a resource path (`Products(1)/Supplier`, `GetProductsByRating(rating=3)`) into segments.
///
/// A simple splitter, not the URL parser: `/` separates segments outside single quotes and
/// parentheses; a segment is a name, optionally followed by `(...)`. A leading `/` and a query
/// (`?...`) are ignored. Percent-decoding is the caller's business.
package enum ResourcePathSplitter {
    /// The segments, or the reason the path cannot be split.
    package static func split(_ path: String) -> Result<[ResourceSegment], ResourcePathError> {
        ParseBindCounter.noteParse(of: path)
        var bytes = Array(path.utf8)
        if let query = firstIndexOutsideQuotes(of: UInt8(ascii: "?"), in: bytes) { bytes.removeSubrange(query...) }
        while bytes.first == UInt8(ascii: "/") { bytes.removeFirst() }
        var segments: [ResourceSegment] = []
        var current: [UInt8] = []
        var depth = 0
        var inQuotes = false
        for byte in bytes {
            if inQuotes {
                // A doubled quote inside a string literal stays inside it.
                if byte == UInt8(ascii: "'") { inQuotes = false }
                current.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "'"): inQuotes = true
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return .failure(ResourcePathError(reason: "unbalanced ')' in '\(path)'")) }
            case UInt8(ascii: "/") where depth == 0:
                switch segment(current) {
                case .success(let made): segments.append(made)
                case .failure(let error): return .failure(error)
                }
                current = []
                continue
            default: break
            }
            current.append(byte)
        }
        if inQuotes { return .failure(ResourcePathError(reason: "unclosed string literal in '\(path)'")) }
        if depth != 0 { return .failure(ResourcePathError(reason: "unclosed '(' in '\(path)'")) }
        if !current.isEmpty || segments.isEmpty {
            switch segment(current) {
            case .success(let made): segments.append(made)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(segments)
    }

    private static func segment(_ bytes: [UInt8]) -> Result<ResourceSegment, ResourcePathError> {
        guard !bytes.isEmpty else { return .failure(ResourcePathError(reason: "empty path segment")) }
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")) else {
            return .success(ResourceSegment(name: String(decoding: bytes, as: UTF8.self)))
        }
        guard bytes.last == UInt8(ascii: ")") else {
            return .failure(ResourcePathError(reason: "text after ')' in segment '\(String(decoding: bytes, as: UTF8.self))'"))
        }
        let name = String(decoding: bytes[..<open], as: UTF8.self)
        let inner = String(decoding: bytes[(open + 1)..<(bytes.count - 1)], as: UTF8.self)
        guard !name.isEmpty else { return .failure(ResourcePathError(reason: "segment without a name before '('")) }
        return .success(ResourceSegment(name: name, keyPredicate: inner, hasParentheses: true))
    }

    private static func firstIndexOutsideQuotes(of target: UInt8, in bytes: [UInt8]) -> Int? {
        var inQuotes = false
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "'") { inQuotes.toggle() } else if byte == target && !inQuotes { return index }
        }
        return nil
    }
}

/// Why a resource path could not be split into segments.
package struct ResourcePathError: Error, Sendable, Hashable {
    package var reason: String
}
