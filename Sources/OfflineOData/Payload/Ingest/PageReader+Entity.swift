/// One entity being read: its values by column index, which columns the payload had, its
/// annotations, and the entities of its expanded navigations.
struct EntityState {
    var plan: TablePlan
    var node: ExpandNode
    var values: [SQLValue]
    /// Bit per column (then `_ood_type`, `_ood_etag`): set when the payload gave a value.
    var mask: [UInt64]
    /// `@odata.etag`; its presence bit is kept with it, so the writer never changes the mask.
    var etag: String? {
        didSet { plan.mark(&mask, plan.etagBit, present: etag != nil) }
    }
    /// `@odata.type`; its presence bit is kept with it.
    var typeName: String? {
        didSet { plan.mark(&mask, plan.typeBit, present: typeName != nil) }
    }
    /// `@odata.id`, `@id`, the `id` of a 4.0 deleted entry, or V2 `__metadata.uri`.
    var id: String?
    /// A deleted entry of a delta (`@removed`, `$deletedEntity`, V2 `"deleted": true`).
    var isRemoved = false
    /// A 4.0 `$deletedEntity` entry, whose `id` member is the entity's id, not a property.
    var isDeletedEntityEntry = false
    /// An entry the store does not keep (`$link`/`$deletedLink` delta entries, other sets).
    var isIgnored = false
    var hasProperties = false
    var navigations: [(navigation: ExpandedNavigation, entities: PageReader.NestedEntities)] = []
    /// Navigations whose list the payload says is partial (`Nav@odata.nextLink`).
    var partialNavigations: [String] = []
    /// The media ETags the payload announced, by stream (``StreamRecord/property``: `""` for the
    /// entity's own, `@odata.mediaEtag` or V2 `__metadata.media_etag`; a stream property's name
    /// for `Prop@odata.mediaEtag`); nil when it announced none (most entities: nothing allocated).
    var mediaETags: [String: String]?

    /// A fresh entity, in buffers a written entity of the same table gave back (``recycle()``)
    /// when there are any.
    init(node: ExpandNode, plan: TablePlan) {
        self.plan = plan
        self.node = node
        values = plan.spareValues.popLast() ?? Array(repeating: .null, count: plan.table.columns.count)
        mask = plan.spareMasks.popLast() ?? Array(repeating: 0, count: plan.maskWords)
    }

    /// Hands the buffers back to the plan, cleared, for the next entity read (``PageReader``
    /// calls it once the entity is written).
    mutating func recycle() {
        for index in values.indices where plan.isSet(mask, index) { values[index] = .null }
        for word in mask.indices { mask[word] = 0 }
        plan.spareValues.append(values)
        plan.spareMasks.append(mask)
        values = []
        mask = []
    }

    /// Keeps the media ETag the payload announced for stream `property` (nil: none).
    mutating func announce(mediaETag: String?, of property: String) {
        guard let mediaETag else { return }
        if mediaETags == nil { mediaETags = [:] }
        mediaETags?[property] = mediaETag
    }

    @inline(__always)
    mutating func set(_ index: Int, _ value: SQLValue) {
        values[index] = value
        mask[index >> 6] |= 1 << UInt64(index & 63)
    }

    /// `@odata.context` of an entry: `#Orders/$entity` moves it to another set of the request,
    /// `#Customers/$deletedEntity` makes it a removal, `$link`/`$deletedLink` are not stored.
    mutating func apply(context: String, session: IngestSession) throws(ODataError) {
        let fragment = context.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init) ?? context
        let parts = fragment.split(separator: "/")
        if parts.contains(where: { $0 == "$link" || $0 == "$deletedLink" }) {
            isIgnored = true
            return
        }
        let deleted = parts.contains { $0 == "$deletedEntity" }
        if deleted {
            isRemoved = true
            isDeletedEntityEntry = true
        }
        guard let first = parts.first, !hasProperties else { return }
        let setName = String(first.prefix { $0 != "(" })
        guard setName != node.entitySet, session.schema.table(forEntitySet: setName) != nil else { return }
        if let other = session.target.node(forEntitySet: setName) {
            self = EntityState(node: other, plan: try session.plan(forEntitySet: other.entitySet))
            isRemoved = deleted
            isDeletedEntityEntry = deleted
        } else {
            isIgnored = true
        }
    }
}

extension PageReader {
    /// Reads one member of an entity (its key was just read).
    mutating func readMember(_ key: JSONToken, _ r: inout JSONReader, _ state: inout EntityState) throws(ODataError) {
        let first = r.withBytes(of: key) { $0.first ?? 0 }
        if !key.hasEscapes, !state.isIgnored, !state.isDeletedEntityEntry,
           let target = r.withBytes(of: key, { state.plan.memberBytes.value(for: $0) }) {
            state.hasProperties = true
            try readValue(of: target, &r, &state)
            return
        }
        if key.hasEscapes || first == UInt8(ascii: "@") || first == UInt8(ascii: "_") || first == UInt8(ascii: "o") {
            if try readAnnotation(key, &r, &state) { return }
        }
        let name = r.decodedString(key)
        if state.isIgnored {
            try r.skipValue()
            return
        }
        if state.isDeletedEntityEntry {
            // `{"@odata.context": "#Set/$deletedEntity", "id": "Set(1)", "reason": ...}`.
            if name == "id" { state.id = try readText(&r) } else { try r.skipValue() }
            return
        }
        if !state.node.navigations.isEmpty, let navigation = state.node.navigations[name] {
            try readNavigation(navigation, &r, &state)
            return
        }
        if let target = state.plan.members[name] {
            state.hasProperties = true
            try readValue(of: target, &r, &state)
            return
        }
        if let at = name.firstIndex(of: "@") {
            // `Nav@odata.nextLink`: the expanded list is partial, so its links are only added to.
            let annotation = name[name.index(after: at)...]
            if annotation == "odata.nextLink" || annotation == "nextLink" {
                state.partialNavigations.append(String(name[..<at]))
            } else if annotation == "odata.mediaEtag" || annotation == "mediaEtag" {
                // `Prop@odata.mediaEtag`: the media ETag of the stream property `Prop`.
                state.announce(mediaETag: try readMediaETag(&r), of: String(name[..<at]))
                return
            }
        } else if state.isRemoved, name == "id" {
            // A deleted entry whose type has no property `id`: the 4.0 form without its context.
            state.id = try readText(&r)
            return
        }
        // Unknown properties, property annotations, navigations not expanded: not stored.
        try r.skipValue()
    }

    /// Entity annotations (V4 `@odata.*`/`@*`, V3 `odata.*`, V2 `__metadata`); false when `key` is none.
    private func readAnnotation(_ key: JSONToken, _ r: inout JSONReader, _ state: inout EntityState) throws(ODataError) -> Bool {
        func its(_ names: String...) -> Bool { names.contains { r.token(key, equals: $0) } }
        if its("@odata.etag", "@etag", "odata.etag") {
            state.etag = try readETag(&r)
        } else if its("@odata.mediaEtag", "@mediaEtag", "odata.mediaEtag") {
            state.announce(mediaETag: try readMediaETag(&r), of: "")
        } else if its("@odata.type", "@type", "odata.type") {
            state.typeName = try readText(&r)
        } else if its("@odata.id", "@id", "odata.id") {
            state.id = try readText(&r)
        } else if its("@removed", "@odata.removed") {
            try r.skipValue()
            state.isRemoved = true
        } else if its("@odata.context", "@context", "odata.context") {
            if let context = try readText(&r) { try state.apply(context: context, session: session) }
        } else if its("__metadata") {
            try readV2Metadata(&r, &state)
        } else if r.withBytes(of: key, { $0.first == UInt8(ascii: "@") }) {
            try r.skipValue()
        } else {
            return false
        }
        return true
    }

    /// V2 `__metadata`: `uri`, `type`, `etag`, `media_etag`, and mock-sap's `"deleted": true`.
    private func readV2Metadata(_ r: inout JSONReader, _ state: inout EntityState) throws(ODataError) {
        let offset = r.offset
        switch try r.next() {
        case .objectStart: break
        case .null: return
        default: throw ODataError(.syntax, "expected an object as the value of \"__metadata\"", offset: offset)
        }
        while let key = try r.nextKey() {
            if r.token(key, equals: "uri") {
                let uri = try readText(&r)
                if state.id == nil { state.id = uri }
            } else if r.token(key, equals: "id") {
                state.id = try readText(&r) ?? state.id
            } else if r.token(key, equals: "type") {
                state.typeName = try readText(&r)
            } else if r.token(key, equals: "etag") {
                state.etag = try readETag(&r)
            } else if r.token(key, equals: "media_etag") {
                state.announce(mediaETag: try readMediaETag(&r), of: "")
            } else if r.token(key, equals: "deleted") {
                if case .bool(true) = try r.next() { state.isRemoved = true }
            } else {
                try r.skipValue()
            }
        }
    }

    /// An entity's ETag. One with CR, LF or NUL could never go into an `If-Match` header (it would
    /// start a header of the service's choosing), and keeping it without would drop the
    /// concurrency check of the entity's changes: the page is refused instead.
    private func readETag(_ r: inout JSONReader) throws(ODataError) -> String? {
        let offset = r.offset
        let etag = try readText(&r)
        if let etag, HTTPOptions.containsLineBreakOrNUL(etag) {
            throw ODataError(.syntax, "the service sent an ETag with CR, LF or NUL, which no If-Match header can carry", offset: offset)
        }
        return etag
    }

    /// A stream's media ETag. Unlike an entity's ETag, one with CR, LF or NUL is only dropped: it
    /// never goes into a header (the stream's own `ETag` answer does), and without it the entity's
    /// ETag decides whether the stream is fetched again.
    private func readMediaETag(_ r: inout JSONReader) throws(ODataError) -> String? {
        guard let etag = try readText(&r), !HTTPOptions.containsLineBreakOrNUL(etag) else { return nil }
        return etag
    }

    /// A string value, or nil for null; other values are skipped (nil).
    func readText(_ r: inout JSONReader) throws(ODataError) -> String? {
        switch try r.peek() {
        case .string(let token):
            _ = try r.next()
            return r.decodedString(token)
        default:
            try r.skipValue()
            return nil
        }
    }

    /// A property value into its column, or a complex value into its leaf columns.
    private func readValue(of target: MemberTarget, _ r: inout JSONReader, _ state: inout EntityState) throws(ODataError) {
        switch target {
        case .column(let index):
            if let stored = try fastValue(state.plan.forms[index], &r) {
                state.set(index, stored)
                return
            }
            let value = try readPropertyValue(&r)
            do {
                let box = state.plan.columnBoxes[index]
                let stored = try EDMValueCodec.storedValue(fromJSON: value, column: box.column, dialect: session.dialect)
                state.set(index, stored)
            } catch {
                throw ODataError(error.code, "entity set '\(state.plan.table.entitySet)': \(error.message)")
            }
        case .complex(let members, let leaves):
            let offset = r.offset
            switch try r.next() {
            case .null:
                for leaf in leaves { state.set(leaf, .null) }
            case .objectStart:
                while let key = try r.nextKey() {
                    let name = r.decodedString(key)
                    if let member = members[name] {
                        try readValue(of: member, &r, &state)
                    } else {
                        // `__metadata`, `@odata.type`, members of derived complex types the table lacks.
                        try r.skipValue()
                    }
                }
            default:
                throw ODataError(.semantic, "entity set '\(state.plan.table.entitySet)': a complex property expects an object or null", offset: offset)
            }
        }
    }

    /// The stored value straight from the next token when the column's form and the token's
    /// shape allow (the token is consumed then); nil leaves the value to ``EDMValueCodec``.
    @inline(__always)
    private func fastValue(_ form: IngestForm, _ r: inout JSONReader) throws(ODataError) -> SQLValue? {
        if form == .general { return nil }
        let stored: SQLValue?
        switch try r.peek() {
        case .string(let token):
            switch form {
            case .text: stored = .text(r.decodedString(token))
            case .instant where !token.hasEscapes: stored = r.withBytes(of: token, IngestForm.instant).map(SQLValue.text)
            case .date where !token.hasEscapes: stored = r.withBytes(of: token, IngestForm.date).map(SQLValue.text)
            case .decimal where !token.hasEscapes: stored = r.withBytes(of: token, IngestForm.decimal).map(SQLValue.text)
            default: stored = nil
            }
        case .number(let token):
            switch form {
            case .decimal: stored = r.withBytes(of: token, IngestForm.decimal).map(SQLValue.text)
            case .integer(let range): stored = r.int64(token).flatMap { range.contains($0) ? SQLValue.integer($0) : nil }
            case .double: stored = r.double(token).map(SQLValue.real)
            default: stored = nil
            }
        case .bool(let flag):
            stored = form == .boolean ? .integer(flag ? 1 : 0) : nil
        case .null:
            stored = .null
        default:
            stored = nil
        }
        if stored != nil { _ = try r.next() }
        return stored
    }

    /// A property value: scalars straight from their token, collections and the like as a tree.
    private func readPropertyValue(_ r: inout JSONReader) throws(ODataError) -> JSONValue {
        switch try r.peek() {
        case .string(let token):
            _ = try r.next()
            return .string(r.decodedString(token))
        case .number(let token):
            _ = try r.next()
            guard let number = r.number(token) else {
                throw ODataError(.syntax, "a number the JSON reader accepted cannot be read back", offset: r.offset)
            }
            return .number(number)
        case .bool(let flag):
            _ = try r.next()
            return .bool(flag)
        case .null:
            _ = try r.next()
            return .null
        default:
            return try r.readValue()
        }
    }

    /// An expanded navigation: an array (to-many), an object (to-one, or V2's `{"results": [...]}`),
    /// or null (to-one with no entity).
    private mutating func readNavigation(_ navigation: ExpandedNavigation, _ r: inout JSONReader, _ state: inout EntityState) throws(ODataError) {
        var nested = NestedEntities()
        switch try r.next() {
        case .null:
            break
        case .arrayStart:
            while try r.nextElement() {
                if let id = try readEntityElement(&r, node: navigation.node) { nested.ids.append(id) }
            }
        case .objectStart:
            nested = try readObject(&r, node: navigation.node, place: .nested)
            if nested.isDeferred { return }
        default:
            return
        }
        state.navigations.append((navigation, nested))
    }
}
