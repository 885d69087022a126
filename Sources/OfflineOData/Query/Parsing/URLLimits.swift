/// How much of a request URL is read before it is refused: its length, its nesting and the
/// operators in one expression. Every limit is checked, so a hostile URL is an error, not a crash
/// (``ODataStore/Options/requestLimits``; the URL parser uses these).
public struct URLLimits: Sendable, Hashable {
    /// Maximum nesting of parentheses, operators, paths and nested options.
    public var maxDepth: Int
    /// Maximum input length in UTF-8 bytes (default 65,536 = 64 KiB).
    public var maxLength: Int
    /// Maximum binary operators (`and`, `or`, `eq`, `add`, ...) in one expression (default
    /// 20,000). A chain of one operator, `a and b and c ...`, is parsed in a loop, but its tree
    /// is as deep as the chain is long, and freeing such a tree recurses once per level: a
    /// chain of 100,000 overflowed a thread's stack. The limit keeps every tree shallow enough.
    public var maxOperators: Int

    public init(maxDepth: Int = 100, maxLength: Int = 65_536, maxOperators: Int = 20_000) {
        self.maxDepth = maxDepth
        self.maxLength = maxLength
        self.maxOperators = maxOperators
    }
}
