extension ODataURLParser.Limits {
    /// Throws ``ODataError/Code/misuse`` unless these limits may bound a store's reads: every one
    /// above 0, and nesting and operators no higher than ``LocalReader/defaultParserLimits``.
    /// Those two bound recursion (the parser's, and the freeing of a tree as deep as its chain
    /// of one operator), which the defaults keep within a thread's stack: they can be lowered,
    /// not raised.
    package func checkForStore() throws(ODataError) {
        let ceiling = LocalReader.defaultParserLimits
        guard maxLength > 0, maxDepth > 0, maxOperators > 0 else {
            throw ODataError(.misuse, "a request limit must be above 0")
        }
        guard maxDepth <= ceiling.maxDepth else {
            throw ODataError(.misuse, "the request nesting limit can be lowered, not raised above \(ceiling.maxDepth)")
        }
        guard maxOperators <= ceiling.maxOperators else {
            throw ODataError(.misuse, "the expression operator limit can be lowered, not raised above \(ceiling.maxOperators)")
        }
    }
}
