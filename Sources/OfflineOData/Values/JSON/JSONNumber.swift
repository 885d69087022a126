/// A JSON number as its exact text, so that `Edm.Decimal` and `Edm.Int64` values survive reading
/// and writing unchanged (`12345678901234567890.123456789`, `-0` and `1E400` stay what they are).
///
/// Equality compares the text: `1.0` and `1` are different numbers here, as they are different
/// documents. Convert with ``int64Value`` or ``doubleValue`` to compare numerically.
public struct JSONNumber: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The number's text, valid per RFC 8259.
    public let text: String

    /// The number written as `text`, or nil when `text` is not a JSON number.
    public init?(_ text: String) {
        var copy = text
        guard copy.withUTF8({ JSONNumberGrammar.isValid($0) }) else { return nil }
        self.text = copy
    }

    /// An integer, written in decimal.
    public init(_ value: Int64) { text = String(value) }

    /// An integer, written in decimal.
    public init(_ value: Int) { text = String(value) }

    /// A finite double, written as the shortest text that reads back as the same double; nil for
    /// infinities and NaN, which JSON cannot write as numbers.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        text = value.description
    }

    init(validated text: String) { self.text = text }

    /// The exact value when the text is an integer that fits in 64 bits; nil otherwise (a fraction,
    /// an exponent, or an overflow).
    public var int64Value: Int64? {
        var copy = text
        return copy.withUTF8 { JSONNumberGrammar.int64($0) }
    }

    /// The nearest double (infinity when the magnitude is beyond `Double`'s range).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// Whether the text has neither fraction nor exponent.
    public var isInteger: Bool { !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") } }

    public var description: String { text }
}
