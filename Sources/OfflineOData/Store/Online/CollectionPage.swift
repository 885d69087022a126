/// One page of a collection the service answered, taken apart where the pages of one answer are
/// joined: the entities' bytes, the next link, and the members around them (`@odata.context`,
/// `@odata.count`, V2's `__count`), so that joining pages rewrites no entity.
///
/// V4 pages are `{"value": [...], "@odata.nextLink": "..."}`, V2 pages
/// `{"d": {"results": [...], "__next": "..."}}`. Anything else (one entity, a V2 collection without
/// `results`) is no collection page: it is answered as it came.
///
/// Related OData documentation: <https://docs.oasis-open.org/odata/odata-json-format/v4.01/odata-json-format-v4.01.html#sec_ControlInformationnextLinkodatanextL>
struct CollectionPage: Sendable {
    /// One object on the way to the collection (V4 the page, V2 the page and then its `d`): its
    /// other members, in order, and where the next object (or the collection) sits among them.
    struct Level: Sendable {
        /// The name of the member that holds the next level: `d`, `value` or `results`.
        let name: String
        /// The other members: name and the bytes of the value in ``CollectionPage/bytes``.
        var members: [Member] = []
        /// How many of `members` come before the next level.
        var slot = 0
    }

    struct Member: Sendable {
        let name: String
        let value: Range<Int>
    }

    let bytes: [UInt8]
    /// Outermost first; the last level holds the collection and the next link.
    let levels: [Level]
    /// Where each entity (or value, for a collection of primitives) of the collection is in `bytes`.
    let entities: [Range<Int>]
    /// The next link as the service wrote it (it may be relative); nil on the last page.
    let nextLink: String?

    /// The member names a next link has: V4 (4.0 and 4.01 spellings), V2.
    private static let nextLinkNames: Set<String> = ["@odata.nextLink", "odata.nextLink", "@nextLink", "__next"]

    /// Reads `bytes` as a page of a collection in `dialect`'s shape.
    ///
    /// - Returns: nil for JSON that is not a collection page (one entity, say).
    /// - Throws: ``ODataError/Code/syntax`` (with the offset) for bytes that are not JSON.
    static func read(_ bytes: [UInt8], dialect: Dialect) throws(ODataError) -> CollectionPage? {
        var walk = Walk(bytes: bytes)
        guard try walk.reader.next() == .objectStart else { return nil }
        let path = dialect == .v2 ? ["d", "results"] : ["value"]
        guard let levels = try walk.object(path: path[...]) else { return nil }
        return CollectionPage(bytes: bytes, levels: levels, entities: walk.entities, nextLink: walk.nextLink)
    }

    /// The reading of one page: a pull reader and what it found so far.
    private struct Walk {
        let bytes: [UInt8]
        var reader: JSONReader
        var entities: [Range<Int>] = []
        var nextLink: String?

        init(bytes: [UInt8]) {
            self.bytes = bytes
            reader = JSONReader(bytes: bytes)
        }

        /// Reads the members of the object just opened, descending along `path`; nil when the
        /// path's member is missing or not of the collection's shape.
        mutating func object(path: ArraySlice<String>) throws(ODataError) -> [Level]? {
            guard let name = path.first else { return nil }
            let isInnermost = path.count == 1
            var level = Level(name: name)
            var inner: [Level]?
            var found = false
            while let key = try reader.nextKey() {
                let member = reader.decodedString(key)
                let start = valueStart(from: reader.offset)
                let next = try reader.peek()
                if member == name, !found {
                    found = true
                    level.slot = level.members.count
                    if isInnermost {
                        guard next == .arrayStart else { return nil }
                        try readEntities()
                        inner = []
                    } else {
                        guard next == .objectStart else { return nil }
                        _ = try reader.next()
                        guard let levels = try object(path: path.dropFirst()) else { return nil }
                        inner = levels
                    }
                } else if isInnermost, Self.isNextLink(member), case .string = next {
                    nextLink = try reader.readString()
                } else {
                    try reader.skipValue()
                    level.members.append(Member(name: member, value: start..<reader.offset))
                }
            }
            guard let inner else { return nil }
            return [level] + inner
        }

        private static func isNextLink(_ name: String) -> Bool { CollectionPage.nextLinkNames.contains(name) }

        /// Reads the collection's array (its `[` not yet taken), keeping where each element is.
        private mutating func readEntities() throws(ODataError) {
            _ = try reader.next()
            var end = reader.offset
            // `nextElement()` looks ahead, so an element starts after the separators that follow
            // the end of the one before it (or the `[`).
            while try reader.nextElement() {
                let start = valueStart(from: end)
                try reader.skipValue()
                end = reader.offset
                entities.append(start..<end)
            }
        }

        /// The offset of the first byte at or after `offset` that is neither white space nor a comma.
        private func valueStart(from offset: Int) -> Int {
            var index = offset
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x2C].contains(bytes[index]) { index += 1 }
            return index
        }
    }
}
