/// Splitting qualified names (`Namespace.Name`) on their UTF-8 bytes: the validator does this
/// for every type reference, and `Character`-based string search is far slower. The searches run
/// on the contiguous bytes (`withUTF8`): `String.UTF8View`'s generic search steps index by index.
enum QualifiedNames {
    /// The namespace (or alias) part before the last dot, nil when there is no dot.
    static func prefix(of name: String) -> Substring? {
        guard let dot = lastOffset(of: UInt8(ascii: "."), in: name) else { return nil }
        return name[..<name.utf8.index(name.utf8.startIndex, offsetBy: dot)]
    }

    /// The part from the last dot on (`.Name`), or the whole name when there is no dot.
    static func suffix(of name: String) -> Substring {
        guard let dot = lastOffset(of: UInt8(ascii: "."), in: name) else { return name[...] }
        return name[name.utf8.index(name.utf8.startIndex, offsetBy: dot)...]
    }

    static func contains(_ text: String, _ byte: UInt8) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(byte) }
    }

    static func contains(_ text: Substring, _ byte: UInt8) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(byte) }
    }

    /// The byte offset of the last `byte` in `text`.
    private static func lastOffset(of byte: UInt8, in text: String) -> Int? {
        var text = text
        return text.withUTF8 { $0.lastIndex(of: byte) }
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
