/// Where a syntax node came from, in the ORIGINAL (not percent-decoded) URL text.
///
/// Offsets count UTF-8 bytes of the text the caller passed in, so a node can be underlined in what
/// the user typed even when it was written as `%27O%27%27Neil%27`. For ASCII input (every URL
/// that follows RFC 3986) bytes and characters coincide; error offsets are converted to characters.
package struct SourceRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var offset: Int
    package var length: Int

    package init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }

    package var end: Int { offset + length }

    /// The smallest range covering both.
    package func union(_ other: SourceRange) -> SourceRange {
        let start = min(offset, other.offset)
        return SourceRange(offset: start, length: max(end, other.end) - start)
    }

    package var description: String { "\(offset)+\(length)" }
}
