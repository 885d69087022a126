/// Finds a page's next link without reading its entities, so the next page can be fetched while
/// this one is stored (``PageFetcher``).
///
/// It knows where the page reader takes the link from: a member of the page's top-level object
/// (`@odata.nextLink` and its 4.0/4.01 spellings, V2 `__next`), or of V2's `d` object. Everything
/// else is skipped as whole values. It is a guess the download checks: the page reader's own link
/// decides which page comes next, and a page whose link the scan got wrong is fetched again.
enum NextLinkScanner {
    /// The next link of a JSON page, or nil when it has none or cannot be read.
    static func nextLink(in page: [UInt8]) -> String? {
        var reader = JSONReader(bytes: page)
        guard (try? reader.next()) == .objectStart else { return nil }
        return try? scanObject(&reader, allowingData: true)
    }

    /// Scans the members of an object whose `{` was read; the last next link wins, as in the reader.
    private static func scanObject(_ r: inout JSONReader, allowingData: Bool) throws(ODataError) -> String? {
        var link: String?
        while let key = try r.nextKey() {
            if allowingData && r.token(key, equals: "d") {
                if try r.peek() == .objectStart {
                    _ = try r.next()
                    if let nested = try scanObject(&r, allowingData: false) { link = nested }
                } else {
                    try r.skipValue()
                }
            } else if isNextLinkName(key, r) {
                guard case .string(let token) = try r.next() else { return nil }
                link = r.decodedString(token)
            } else {
                try r.skipValue()
            }
        }
        return link
    }

    private static func isNextLinkName(_ key: JSONToken, _ r: JSONReader) -> Bool {
        r.token(key, equals: "@odata.nextLink") || r.token(key, equals: "__next")
            || r.token(key, equals: "@nextLink") || r.token(key, equals: "odata.nextLink")
    }
}
