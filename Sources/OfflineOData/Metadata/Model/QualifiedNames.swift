/// Splitting qualified names (`Namespace.Name`) on their UTF-8 bytes: the validator does this
/// for every type reference, and `Character`-based string search is far slower.
enum QualifiedNames {
    /// The namespace (or alias) part before the last dot, nil when there is no dot.
    static func prefix(of name: String) -> Substring? {
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return name[..<dot]
    }

    /// The part from the last dot on (`.Name`), or the whole name when there is no dot.
    static func suffix(of name: String) -> Substring {
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return name[...] }
        return name[dot...]
    }

    static func contains(_ text: some StringProtocol, _ byte: UInt8) -> Bool {
        text.utf8.contains(byte)
    }
}

/// The segments of a path (`Address/City`) split on `/`, empty ones included, without the array
/// and copies `split` makes: bindings and constraints are checked by the thousand.
struct PathSegments: Sequence, IteratorProtocol {
    private let path: String
    private var start: String.Index?

    init(_ path: String) {
        self.path = path
        start = path.startIndex
    }

    mutating func next() -> Substring? {
        guard let from = start else { return nil }
        let rest = path.utf8[from...]
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            start = path.utf8.index(after: slash)
            return path[from..<slash]
        }
        start = nil
        return path[from...]
    }
}
