internal import CSQLite

/// Writes the entity in the current row of a statement as an OData JSON object, V4 or V2.
///
/// The hot path reads text straight from SQLite's buffer into the writer and uses keys escaped
/// once per query; only values whose JSON form differs from the stored one (dates, decimals,
/// V2 Int64, binary) go through `EDMValueCodec`.
///
/// A class: one is made per answer and handed to closures; as a struct of these fields it was
/// copied (a retain each) and destroyed again on every read (issue 38's key read profile).
final class EntityRowWriter {
    /// V4's `@odata.context`, also the first member of a collection answer (``LocalReader``).
    static let contextKey = JSONWriter.EncodedKey("@odata.context")
    static let etagKey = JSONWriter.EncodedKey("@odata.etag")
    static let typeKey = JSONWriter.EncodedKey("@odata.type")
    static let metadataKey = JSONWriter.EncodedKey("__metadata")
    static let uriKey = JSONWriter.EncodedKey("uri")
    static let v2TypeKey = JSONWriter.EncodedKey("type")
    static let v2EtagKey = JSONWriter.EncodedKey("etag")
    static let deferredKey = JSONWriter.EncodedKey("__deferred")
    static let resultsKey = JSONWriter.EncodedKey("results")

    let model: MetadataModel
    let dialect: Dialect
    /// The service root, ending in `/`.
    let serviceRoot: String
    let table: EntitySetTable
    let columns: [StoredColumn]
    /// The result column of `_ood_id`; `_ood_etag` and `_ood_type` follow it.
    let idColumn: Int
    let select: [[String]]?
    private var layouts: [String: EntityLayout] = [:]
    /// The set's own type's layout, kept apart so most rows need no dictionary lookup.
    private var baseLayout: EntityLayout?

    private let cache: LayoutCache?
    /// Where a kept read keeps its base layout between answers.
    private let kept: KeptLayout?

    init(model: MetadataModel, dialect: Dialect, serviceRoot: String, query: SQLQuery, select: [[String]]?, cache: LayoutCache? = nil,
         kept: KeptLayout? = nil) {
        self.cache = cache
        self.kept = kept
        baseLayout = kept?.layout
        self.model = model
        self.dialect = dialect
        self.serviceRoot = serviceRoot
        self.table = query.table
        self.columns = query.columns
        self.idColumn = query.leadingColumns
        self.select = select
    }

    /// The layout for a concrete type (the set's type when `_ood_type` is NULL).
    func layout(for typeName: String) -> EntityLayout {
        if let known = layouts[typeName] { return known }
        guard let cache else {
            let layout = makeLayout(for: typeName)
            layouts[typeName] = layout
            return layout
        }
        let selection = select.map { $0.map { $0.joined(separator: "/") }.joined(separator: ",") } ?? "*"
        let layout = cache.layout("\(idColumn)|\(table.entitySet)|\(typeName)|\(selection)") { makeLayout(for: typeName) }
        layouts[typeName] = layout
        return layout
    }

    private func makeLayout(for typeName: String) -> EntityLayout {
        let type = model.entityType(named: typeName) ?? model.entityType(named: table.entityType)
        let hierarchy = type.map { model.typeHierarchy(of: $0).map(\.qualifiedName) } ?? [table.entityType]
        let navigations = type.map { model.navigationProperties(of: $0).map(\.name) } ?? []
        let layout = EntityLayout(typeName: typeName, columns: columns, firstColumn: idColumn + SQLQuery.systemColumnCount,
                                  admitted: Set(hierarchy), keyColumns: table.keyColumns, navigations: navigations, dialect: dialect)
        return layout
    }

    /// - Parameter context: a V4 `@odata.context` to write first (for a single-entity response).
    func write(_ row: Statement, expanded: [ExpandedEntities], context: String? = nil, to writer: inout JSONWriter) throws(ODataError) {
        let isBaseType = row.columnType(at: idColumn + 2) == SQLITE_NULL
        let concreteType = isBaseType ? table.entityType : (row.text(at: idColumn + 2) ?? table.entityType)
        let layout: EntityLayout
        if isBaseType, let known = baseLayout {
            layout = known
        } else {
            layout = self.layout(for: concreteType)
            if isBaseType {
                baseLayout = layout
                kept?.layout = layout
            }
        }
        let id = row.int(at: idColumn)
        writer.beginObject()
        var entityURI = ""
        if dialect == .v4 {
            if let context {
                writer.writeKey(Self.contextKey)
                writer.writeString(context)
            }
            if row.columnType(at: idColumn + 1) != SQLITE_NULL {
                writer.writeKey(Self.etagKey)
                writer.writeString(utf8: row.textBytes(at: idColumn + 1))
            }
            if concreteType != table.entityType {
                writer.writeKey(Self.typeKey)
                writer.writeString("#" + concreteType)
            }
        } else {
            entityURI = serviceRoot + table.entitySet + V2KeyLiteral.predicate(layout.keyColumns.map { (row.value(at: $0.column), $0.stored) })
            writer.writeKey(Self.metadataKey)
            writer.beginObject()
            writer.writeKey(Self.uriKey)
            writer.writeString(entityURI)
            writer.writeKey(Self.v2TypeKey)
            writer.writeString(concreteType)
            if row.columnType(at: idColumn + 1) != SQLITE_NULL {
                writer.writeKey(Self.v2EtagKey)
                writer.writeString(utf8: row.textBytes(at: idColumn + 1))
            }
            writer.endObject()
        }
        writeLocalState(row, to: &writer)
        try writeProperties(row, layout, to: &writer)
        for navigation in layout.navigations {
            if let related = expanded.first(where: { $0.name == navigation.name }) {
                related.write(forParent: id, dialect: dialect, to: &writer)
            } else if dialect == .v2, select?.contains(where: { $0.first == navigation.name }) ?? true {
                writer.writeKey(navigation.key)
                writer.beginObject()
                writer.writeKey(Self.deferredKey)
                writer.beginObject()
                writer.writeKey(Self.uriKey)
                writer.writeString(entityURI + "/" + navigation.name)
                writer.endObject()
                writer.endObject()
            }
        }
        writer.endObject()
    }

    /// The `ETag` of the entity `row` holds, as ``write(_:expanded:context:to:)`` writes it into the
    /// body (`@odata.etag`, V2 `__metadata.etag`): so an answer's header is taken from the row, not
    /// parsed back out of the body. Nil when it has none, or one that no header can carry.
    func etag(of row: Statement) -> String? {
        guard row.columnType(at: idColumn + 1) != SQLITE_NULL else { return nil }
        let etag = String(decoding: row.textBytes(at: idColumn + 1), as: UTF8.self)
        return etag.isEmpty || HTTPOptions.containsLineBreakOrNUL(etag) ? nil : etag
    }

    static let isLocalKey = JSONWriter.EncodedKey("@com.sap.vocabularies.Offline.v1.isLocal")
    static let hasPendingChangesKey = JSONWriter.EncodedKey("@com.sap.vocabularies.Offline.v1.hasPendingChanges")
    static let inErrorStateKey = JSONWriter.EncodedKey("@com.sap.vocabularies.Offline.v1.inErrorState")

    /// The entity's pending state as instance annotations of SAP's offline vocabulary, written only
    /// when true (a synced entity looks as the service gives it): `isLocal` (created offline, not
    /// uploaded), `hasPendingChanges` (a change waits in the queue), `inErrorState` (the service
    /// refused one; see the error archive). The same tests are `$filter` functions (`sap.islocal()`).
    private func writeLocalState(_ row: Statement, to writer: inout JSONWriter) {
        let change = idColumn + 3, error = idColumn + 4
        if row.columnType(at: change) != SQLITE_NULL {
            if row.text(at: change) == LocalChange.created.rawValue {
                writer.writeKey(Self.isLocalKey)
                writer.writeBool(true)
            }
            writer.writeKey(Self.hasPendingChangesKey)
            writer.writeBool(true)
        }
        if row.int(at: error) != 0 {
            writer.writeKey(Self.inErrorStateKey)
            writer.writeBool(true)
        }
    }

    func writeProperties(_ row: Statement, _ layout: EntityLayout, to writer: inout JSONWriter) throws(ODataError) {
        try layout.keyText.withUnsafeBufferPointer { (text: UnsafeBufferPointer<UInt8>) throws(ODataError) in
            try layout.keyBounds.withUnsafeBufferPointer { (bounds: UnsafeBufferPointer<Range<Int>>) throws(ODataError) in
                try layout.steps.withUnsafeBufferPointer { (steps: UnsafeBufferPointer<EntityLayout.Step>) throws(ODataError) in
                    for step in steps {
                        switch step {
                        case .open(let key):
                            writer.writeKey(encoded: UnsafeBufferPointer(rebasing: text[bounds[key]]))
                            writer.beginObject()
                        case .close:
                            writer.endObject()
                        case .value(let column, let key, let stored, let form):
                            writer.writeKey(encoded: UnsafeBufferPointer(rebasing: text[bounds[key]]))
                            if !(try Self.writeFast(row, column, form, to: &writer)) {
                                try EDMValueCodec.write(row.value(at: column), column: columns[stored], dialect: dialect, to: &writer)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One stored value as its JSON property value (the codec's form, by the fastest route).
    static func writeValue(_ row: Statement, _ column: Int, _ stored: StoredColumn, dialect: Dialect,
                           to writer: inout JSONWriter) throws(ODataError) {
        if try !writeFast(row, column, EntityLayout.form(of: stored, dialect), to: &writer) {
            try EDMValueCodec.write(row.value(at: column), column: stored, dialect: dialect, to: &writer)
        }
    }

    /// Writes the value without a copy when its form allows; false leaves it to the codec.
    @inline(__always)
    static func writeFast(_ row: Statement, _ column: Int, _ form: EntityLayout.ValueForm, to writer: inout JSONWriter) throws(ODataError) -> Bool {
        let storage = row.columnType(at: column)
        if storage == SQLITE_NULL {
            writer.writeNull()
            return true
        }
        switch form {
        case .text where storage == SQLITE_TEXT:
            writer.writeString(utf8: row.textBytes(at: column))
        case .integer where storage == SQLITE_INTEGER:
            writer.writeNumber(row.int(at: column))
        case .boolean where storage == SQLITE_INTEGER:
            writer.writeBool(row.int(at: column) != 0)
        case .double where storage == SQLITE_FLOAT:
            let number = row.double(at: column)
            guard number.isFinite else { return false }
            try writer.writeNumber(number)
        case .json where storage == SQLITE_TEXT:
            writer.writeRaw(UnsafeRawBufferPointer(row.textBytes(at: column)))
        case .decimal where storage == SQLITE_TEXT:
            try writer.writeNumber(text: row.textBytes(at: column))
        case .instant where storage == SQLITE_TEXT:
            return writeInstant(row.textBytes(at: column), to: &writer)
        default:
            return false
        }
        return true
    }

    /// `YYYY-MM-DDThh:mm:ss.fffffffZ` (the stored form, an offset after it ignored) as V4 writes
    /// it: the fraction without its trailing zeros, none when it is zero. Anything else is left to
    /// the codec.
    @inline(__always)
    static func writeInstant(_ stored: UnsafeBufferPointer<UInt8>, to writer: inout JSONWriter) -> Bool {
        guard stored.count == 28 || stored.count == StoredInstant.utcCount + 6, stored[19] == UInt8(ascii: "."), stored[27] == UInt8(ascii: "Z") else { return false }
        var end = 27
        while end > 20 && stored[end - 1] == UInt8(ascii: "0") { end -= 1 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 28) { buffer in
            var count = 0
            let kept = end == 20 ? 19 : end
            for index in 0..<kept {
                buffer[count] = stored[index]
                count += 1
            }
            buffer[count] = UInt8(ascii: "Z")
            count += 1
            writer.writeString(utf8: UnsafeBufferPointer(rebasing: buffer[0..<count]))
            return true
        }
    }
}
