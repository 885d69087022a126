/// One step of a JSON document, as ``JSONReader/next()`` reports it.
///
/// Strings, keys and numbers are not copied out of the input: they come as a ``JSONToken`` (a byte
/// range into the reader's input), so walking a page of entities allocates nothing until the caller
/// asks for a value (``JSONReader/decodedString(_:)``, ``JSONReader/int64(_:)`` and friends).
package enum JSONEvent: Equatable, Sendable {
    /// `{`: members follow, each a ``key(_:)`` and then its value, up to ``objectEnd``.
    case objectStart
    /// `}`
    case objectEnd
    /// `[`: elements follow up to ``arrayEnd``.
    case arrayStart
    /// `]`
    case arrayEnd
    /// An object member's name. The member's value is the next event.
    case key(JSONToken)
    /// A string value; ``JSONReader/decodedString(_:)`` gives its text.
    case string(JSONToken)
    /// A number, kept as its exact text (never rounded through `Double` unless asked).
    case number(JSONToken)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// The document is complete: the top-level value was read and only whitespace followed it.
    case end
}

/// Where a string, key or number sits in the reader's input.
///
/// A token only means something to the reader that produced it.
package struct JSONToken: Equatable, Hashable, Sendable {
    /// The byte range in the input: for strings and keys the text between the quotes (still
    /// escaped), for numbers the number's text.
    package let range: Range<Int>
    /// For strings and keys: the text contains at least one backslash escape, so its bytes differ
    /// from its value. Unescaped strings can be compared and copied byte for byte.
    package let hasEscapes: Bool
    /// For numbers: the text has neither a fraction nor an exponent (`-12`, `0`, `12345678901234567890`).
    package let isInteger: Bool

    init(range: Range<Int>, hasEscapes: Bool = false, isInteger: Bool = false) {
        self.range = range
        self.hasEscapes = hasEscapes
        self.isInteger = isInteger
    }
}
