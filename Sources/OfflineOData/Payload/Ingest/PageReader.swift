/// Walks one page with the pull reader and writes each entity as soon as its last member is
/// read (``EntityWriter``): the envelope (V4 `value`, V2 `d`, `d.results`, no `d`, V1 arrays, a
/// single entity) and the page's links and count. Entities are never built as trees: each
/// property value is read on its own.
///
/// Nothing of the page is kept but the entity being read (and those it is nested in): a written
/// entity hands its buffers back to its plan for the next one. So the memory a page costs beyond
/// its bytes does not grow with its length, and a service's large pages are no multiple of
/// themselves in memory. An entity's expanded navigations end before it does, so their entities
/// are written first and their ids are known for its links.
struct PageReader {
    let session: IngestSession
    var summary = PageSummary()
    /// Writes each finished entity, in the order they finish.
    private let writer: EntityWriter
    /// The plan of the last entity read: consecutive entities are mostly of one set.
    var recentPlan: TablePlan?

    init(session: IngestSession) {
        self.session = session
        writer = EntityWriter(session: session)
    }

    /// Where an object sits, which decides what its feed-level members mean.
    enum Place {
        /// The page's top-level object.
        case page
        /// V2's `d` object.
        case pageData
        /// A V2 expanded navigation: `{"results": [...]}`, `{"__deferred": ...}` or an entity.
        case nested
    }

    /// The entities an expanded navigation held, for links.
    struct NestedEntities {
        /// Their local ids (written before the entity that holds them; removed and ignored
        /// entries have none).
        var ids: [Int64] = []
        /// False when the service sent only part of the list (a nested next link).
        var isComplete = true
        /// V2 `__deferred`: not expanded, so nothing is known.
        var isDeferred = false
    }

    /// Reads and writes the page; what it said besides its entities, with the counts written.
    mutating func readPage(_ r: inout JSONReader) throws(ODataError) -> PageSummary {
        let root = session.target.root
        let offset = r.offset
        switch try r.next() {
        case .objectStart:
            _ = try readObject(&r, node: root, place: .page)
        case .arrayStart:
            while try r.nextElement() { _ = try readEntityElement(&r, node: root) }
        default:
            throw ODataError(.syntax, "an OData response page is a JSON object", offset: offset)
        }
        _ = try r.next() // .end, or the error for trailing content
        return summary
    }

    /// Reads an object whose `{` was consumed: a feed wrapper, or one entity whose members start
    /// with the first member that is not a feed member.
    mutating func readObject(_ r: inout JSONReader, node: ExpandNode, place: Place) throws(ODataError) -> NestedEntities {
        var nested = NestedEntities()
        var entity: EntityState?
        while let key = try r.nextKey() {
            if entity != nil {
                // Swift cannot pass an optional's payload inout; move it out and back.
                guard var state = entity else { break }
                entity = nil
                try readMember(key, &r, &state)
                entity = state
                continue
            }
            var kind = FeedKey(key, reader: r, place: place)
            // `results`/`value` only wrap a feed when they hold an array; else they are properties.
            if kind == .entities, try r.peek() != .arrayStart { kind = .other }
            switch kind {
            case .data:
                let offset = r.offset
                switch try r.next() {
                case .objectStart: nested = try readObject(&r, node: node, place: .pageData)
                case .arrayStart: while try r.nextElement() { _ = try readEntityElement(&r, node: node) }
                default: throw ODataError(.syntax, "expected an object or an array as the value of \"d\"", offset: offset)
                }
            case .entities:
                _ = try r.next()
                while try r.nextElement() {
                    let id = try readEntityElement(&r, node: node)
                    // Only a navigation's list needs its ids, for its links; a page's does not.
                    if place == .nested, let id { nested.ids.append(id) }
                }
            case .count:
                let count = try readInteger(&r)
                if place != .nested { summary.count = count }
            case .nextLink:
                let link = try readLink(&r)
                if place == .nested { nested.isComplete = false } else { summary.nextLink = link }
            case .deltaLink:
                let link = try readLink(&r)
                if place != .nested { summary.deltaLink = link }
            case .deferred:
                try r.skipValue()
                nested.isDeferred = true
            case .context:
                // The page's context URL names what the request already says.
                try r.skipValue()
            case .other:
                var state = try EntityState(node: node, plan: plan(for: node))
                try readMember(key, &r, &state)
                entity = state
            }
        }
        if var entity = entity.take(), let id = try collect(&entity) { nested.ids.append(id) }
        return nested
    }

    /// Reads and writes one element of an entity array: always an entity object. Returns its
    /// local id (nil for removed and ignored entries).
    mutating func readEntityElement(_ r: inout JSONReader, node: ExpandNode) throws(ODataError) -> Int64? {
        let offset = r.offset
        guard try r.next() == .objectStart else {
            throw ODataError(.syntax, "expected an entity object in the list of '\(node.entitySet)'", offset: offset)
        }
        var state = try EntityState(node: node, plan: plan(for: node))
        while let key = try r.nextKey() { try readMember(key, &r, &state) }
        return try collect(&state)
    }

    /// Writes a finished entity and gives its buffers back for the next one; returns its local
    /// id (nil for removed and ignored entries).
    private mutating func collect(_ entity: inout EntityState) throws(ODataError) -> Int64? {
        let id = try writer.write(entity, summary: &summary)
        entity.recycle()
        try session.flushMembershipsWhenMany()
        return id
    }

    /// The plan of the table an entity of `node` goes to.
    mutating func plan(for node: ExpandNode) throws(ODataError) -> TablePlan {
        if let recentPlan, recentPlan.table.entitySet == node.entitySet { return recentPlan }
        let plan = try session.plan(forEntitySet: node.entitySet)
        recentPlan = plan
        return plan
    }

    /// `__count` is a string in V2 JSON, `@odata.count` a number in V4.
    private func readInteger(_ r: inout JSONReader) throws(ODataError) -> Int? { try PageEnvelope.readCount(&r) }

    private func readLink(_ r: inout JSONReader) throws(ODataError) -> String? { try PageEnvelope.readLink(&r) }
}

/// What a member of a feed-level object means (anything else starts an entity).
private enum FeedKey {
    case data, entities, count, nextLink, deltaLink, deferred, context, other

    init(_ key: JSONToken, reader r: JSONReader, place: PageReader.Place) {
        func its(_ names: String...) -> Bool { names.contains { r.token(key, equals: $0) } }
        if place == .page && its("d") { self = .data }
        else if its("results") || (place != .nested && its("value")) { self = .entities }
        else if its("__count", "@odata.count", "@count", "odata.count") { self = .count }
        else if its("__next", "@odata.nextLink", "@nextLink", "odata.nextLink") { self = .nextLink }
        else if its("__delta", "@odata.deltaLink", "@deltaLink", "odata.deltaLink") { self = .deltaLink }
        else if place == .nested && its("__deferred") { self = .deferred }
        else if its("@odata.context", "@context", "odata.metadata") { self = .context }
        else { self = .other }
    }
}
