/// The kinds of tokens of OData URL expressions, paths and option lists.
enum TokenKind: UInt8, Sendable {
    case end
    /// An identifier, or a dotted qualified name (`Model.Customer`, `geo.distance`, `Model.*`).
    case name
    /// `$it`, `$root`, `$count`, `$filter`, ...
    case dollarName
    /// `@p`, `@Core.Messages`, `@Measures.Currency#Reporting`.
    case atName
    /// `'...'` with doubled quotes inside.
    case string
    /// `"..."` with JSON backslash escapes (in 4.01 JSON array and object literals).
    case jsonString
    /// A name written right before a quoted string: `datetime'...'`, `binary'...'`, `Sales.Pattern'Yellow'`.
    case prefixedString
    /// An integer, decimal or double literal, with its sign and (V2) suffix; also `-INF`.
    case number
    case date
    case dateTimeOffset
    case timeOfDay
    case guid
    case openParen, closeParen, comma, slash, colon, equals, semicolon, star, minus
    case openBracket, closeBracket, openBrace, closeBrace, doubleQuote
    /// Any other byte: the parser reports it where it stands.
    case other
}

/// A token: its kind and its decoded byte range. `spaceBefore` records whitespace in front of it,
/// because OData requires whitespace around `and`, `eq`, `add`, ... and forbids it elsewhere.
struct Token: Sendable {
    var kind: TokenKind
    var start: Int
    var end: Int
    var spaceBefore: Bool
    /// Whether the token's name has a `.` in it (a qualified name): noted while scanning, so the
    /// parser need not scan a name again to ask.
    var isDotted = false
}
