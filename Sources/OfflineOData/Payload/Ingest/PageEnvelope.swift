/// Reads what a page says about the download (its next link, delta link and count, and how many
/// entries it lists) without writing its entities: a download in progress keeps its pages as
/// bytes until the last one is there (``DownloadResumeTable``), and needs only this to go on.
///
/// The whole page is read, so a page that is not JSON is refused here, when it arrives, with its
/// offset. The envelopes are those ``PageReader`` knows: V4 `{"value": [...]}`, V2 `{"d":
/// {"results": [...]}}` or `{"d": [...]}`, a bare array, and a single entity (one entry, no links).
/// `entities` counts the top-level entries (expanded ones are counted when the page is written).
enum PageEnvelope {
    static func summary(of input: JSONInput, valueLimit: PageValueLimit = .none) throws(ODataError) -> PageSummary {
        var reader = JSONReader(input: input)
        var summary = PageSummary()
        let offset = reader.offset
        switch try reader.next() {
        case .objectStart:
            try readObject(&reader, into: &summary, isTop: true, valueLimit: valueLimit)
        case .arrayStart:
            summary.entities = try countElements(&reader, valueLimit: valueLimit)
        default:
            throw ODataError(.syntax, "an OData response page is a JSON object", offset: offset)
        }
        _ = try reader.next() // .end, or the error for trailing content
        return summary
    }

    /// The members of the page's object (or V2's `d`): the feed's members are read, the rest skipped.
    private static func readObject(_ r: inout JSONReader, into summary: inout PageSummary, isTop: Bool,
                                   valueLimit: PageValueLimit) throws(ODataError) {
        var hasEntries = false
        var isEntity = false
        while let key = try r.nextKey() {
            try valueLimit.checkName(key, at: r.offset, reader: r)
            func its(_ names: String...) -> Bool { names.contains { r.token(key, equals: $0) } }
            if isTop && its("d") {
                let offset = r.offset
                switch try r.next() {
                case .objectStart: try readObject(&r, into: &summary, isTop: false, valueLimit: valueLimit)
                case .arrayStart: summary.entities = try countElements(&r, valueLimit: valueLimit)
                default: throw ODataError(.syntax, "expected an object or an array as the value of \"d\"", offset: offset)
                }
                hasEntries = true
            } else if its("results", "value"), try r.peek() == .arrayStart {
                _ = try r.next()
                summary.entities = try countElements(&r, valueLimit: valueLimit)
                hasEntries = true
            } else if its("__count", "@odata.count", "@count", "odata.count") {
                summary.count = try readCount(&r)
            } else if its("__next", "@odata.nextLink", "@nextLink", "odata.nextLink") {
                summary.nextLink = try readLink(&r)
            } else if its("__delta", "@odata.deltaLink", "@deltaLink", "odata.deltaLink") {
                summary.deltaLink = try readLink(&r)
            } else {
                if !its("@odata.context", "@context", "odata.metadata") { isEntity = true }
                try valueLimit.skipValue(&r, named: key)
            }
        }
        // A single entity: its members are none of the feed's.
        if isEntity && !hasEntries { summary.entities = 1 }
    }

    private static func countElements(_ r: inout JSONReader, valueLimit: PageValueLimit) throws(ODataError) -> Int {
        var count = 0
        while try r.nextElement() {
            try valueLimit.skipValue(&r, named: nil)
            count += 1
        }
        return count
    }

    /// `__count` is a string in V2 JSON, `@odata.count` a number in V4.
    static func readCount(_ r: inout JSONReader) throws(ODataError) -> Int? {
        let offset = r.offset
        switch try r.next() {
        case .number(let token): return r.int64(token).map { Int($0) }
        case .string(let token): return Int(r.decodedString(token))
        case .null: return nil
        default: throw ODataError(.syntax, "expected a count (a number or a string)", offset: offset)
        }
    }

    static func readLink(_ r: inout JSONReader) throws(ODataError) -> String? {
        let offset = r.offset
        switch try r.next() {
        case .string(let token): return r.decodedString(token)
        case .null: return nil
        default: throw ODataError(.syntax, "expected a URL string", offset: offset)
        }
    }
}
