/// The pages of one online read joined into the answer the service would give unpaged: the first
/// page's members (`@odata.context`, `@odata.count`, V2's `__count`) around the entities of every
/// page, without a next link, and at most `$top` entities.
///
/// Members only a later page has (a delta link, which the specification puts on the last page)
/// are kept too, after the first page's.
struct JoinedCollection {
    private var pages: [CollectionPage]
    /// The `$top` of the read: no more entities are kept, and none are asked for once there are as many.
    let top: Int?
    /// The entities of all pages so far.
    private(set) var entityCount: Int
    /// The bytes of all pages so far, as the service sent them.
    private(set) var byteCount: Int

    init(first: CollectionPage, top: Int?) {
        pages = [first]
        self.top = top
        entityCount = first.entities.count
        byteCount = first.bytes.count
    }

    /// Whether `$top` entities are there: the next link need not be followed.
    var hasEnough: Bool { top.map { entityCount >= $0 } ?? false }

    mutating func append(_ page: CollectionPage) {
        pages.append(page)
        entityCount += page.entities.count
        byteCount += page.bytes.count
    }

    /// The joined answer as JSON.
    func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: byteCount + 64)
        if let first = pages.first { write(levels: first.levels[...], of: first, to: &writer) }
        return (try? writer.finish()) ?? []
    }

    /// Writes the object of `levels.first` and, at its slot, the next level or the collection.
    private func write(levels: ArraySlice<CollectionPage.Level>, of first: CollectionPage, to writer: inout JSONWriter) {
        guard let level = levels.first else { return }
        let isInnermost = levels.count == 1
        writer.beginObject()
        for (index, member) in level.members.enumerated() {
            if index == level.slot { writeSlot(level, levels: levels, of: first, to: &writer) }
            writeMember(member, of: first, to: &writer)
        }
        if level.slot >= level.members.count { writeSlot(level, levels: levels, of: first, to: &writer) }
        if isInnermost, pages.count > 1, let last = pages.last, let lastLevel = last.levels.last {
            let names = Set(level.members.map(\.name))
            for member in lastLevel.members where !names.contains(member.name) { writeMember(member, of: last, to: &writer) }
        }
        writer.endObject()
    }

    private func writeSlot(_ level: CollectionPage.Level, levels: ArraySlice<CollectionPage.Level>, of first: CollectionPage,
                           to writer: inout JSONWriter) {
        writer.writeKey(level.name)
        if levels.count == 1 {
            writeEntities(to: &writer)
        } else {
            write(levels: levels.dropFirst(), of: first, to: &writer)
        }
    }

    private func writeMember(_ member: CollectionPage.Member, of page: CollectionPage, to writer: inout JSONWriter) {
        writer.writeKey(member.name)
        page.bytes[member.value].withUnsafeBytes { writer.writeRaw($0) }
    }

    /// The entities of every page, in order, up to `top`.
    private func writeEntities(to writer: inout JSONWriter) {
        var remaining = top ?? Int.max
        writer.beginArray()
        for page in pages {
            for entity in page.entities {
                guard remaining > 0 else { break }
                page.bytes[entity].withUnsafeBytes { writer.writeRaw($0) }
                remaining -= 1
            }
        }
        writer.endArray()
    }
}
