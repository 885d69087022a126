/// `identifier` quoted for SQL text: the names come from `$metadata`, so they are quoted, never
/// trusted (a `"` inside is doubled). Values are never quoted: they are bound.
package func quoteIdentifier(_ identifier: String) -> String {
    // The common case, no quote inside, without splitting (SQL translation quotes names per read).
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
}
