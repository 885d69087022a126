/// The response shapes: V4 `{"@odata.context", "@odata.count", "value"}` and entity objects; V2
/// `{"d": {"results": [...], "__count": "N"}}` and `{"d": {...}}`.
extension LocalReader {
    static let countKey = JSONWriter.EncodedKey("@odata.count")
    static let valueKey = JSONWriter.EncodedKey("value")
    static let dataKey = JSONWriter.EncodedKey("d")
    static let v2CountKey = JSONWriter.EncodedKey("__count")

    /// `context`: the V4 `@odata.context`, when the caller made it already.
    func readCollection(_ request: BoundRequest, _ plan: ReadPlan, kept: KeptLayout? = nil, keptStatement: KeptStatement? = nil,
                        context: String? = nil, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        guard let query = plan.main, let path = request.path else { throw ODataError(.internalError, "no main statement") }
        let count = try plan.count.map { (count: SQLQuery) throws(ODataError) -> Int64 in try runCount(count, on: db) }
        var writer = JSONWriter(capacity: 16_384)
        try statements.with(query.sql, kept: keptStatement, on: db) { (statement: Statement) throws(ODataError) in
            try statement.bind(query.parameters)
            let expanded = try expandedEntities(request.options.expand, parents: statement, idColumn: 0, on: db)
            let rows = EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot, query: query, select: request.options.select, cache: layouts,
                                      kept: kept)
            writer.beginObject()
            if dialect == .v4 {
                writer.writeKey(EntityRowWriter.contextKey)
                writer.writeString(context ?? contextURL(path.entitySet + selectSuffix(request.options.select)))
                if let count {
                    writer.writeKey(Self.countKey)
                    writer.writeNumber(count)
                }
                writer.writeKey(Self.valueKey)
            } else {
                writer.writeKey(Self.dataKey)
                writer.beginObject()
                if let count {
                    writer.writeKey(Self.v2CountKey)
                    writer.writeString(String(count))
                }
                writer.writeKey(EntityRowWriter.resultsKey)
            }
            writer.beginArray()
            while try statement.step() { try rows.write(statement, expanded: expanded, to: &writer) }
            writer.endArray()
            if dialect == .v2 { writer.endObject() }
            writer.endObject()
        }
        return ReadResult(body: try writer.finish(), contentType: ReadResult.jsonContentType)
    }

    func readEntity(_ request: BoundRequest, _ plan: ReadPlan, kept: KeptLayout? = nil, keptStatement: KeptStatement? = nil,
                    context: String? = nil, on db: SQLiteConnection, pathText: String) throws(ODataError) -> ReadResult {
        guard let query = plan.main, let path = request.path else { throw ODataError(.internalError, "no main statement") }
        var writer = JSONWriter(capacity: 4096)
        var etag: String?
        try statements.with(query.sql, kept: keptStatement, on: db) { (statement: Statement) throws(ODataError) in
            try statement.bind(query.parameters)
            let expanded = try expandedEntities(request.options.expand, parents: statement, idColumn: 0, on: db)
            guard try statement.step() else { throw ODataError(.notFound, "no entity '\(pathText)' in the offline store") }
            let rows = EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot, query: query, select: request.options.select, cache: layouts,
                                      kept: kept)
            if dialect == .v4 {
                try rows.write(statement, expanded: expanded,
                               context: context ?? contextURL(path.entitySet + selectSuffix(request.options.select) + "/$entity"), to: &writer)
            } else {
                writer.beginObject()
                writer.writeKey(Self.dataKey)
                try rows.write(statement, expanded: expanded, to: &writer)
                writer.endObject()
            }
            etag = rows.etag(of: statement)
        }
        return ReadResult(body: try writer.finish(), contentType: ReadResult.jsonContentType,
                          headers: etag.map { [HTTPHeader("ETag", $0)] } ?? [])
    }

    func readProperty(_ request: BoundRequest, _ plan: ReadPlan, path propertyPath: [String], rawValue: Bool,
                      on db: SQLiteConnection, pathText: String) throws(ODataError) -> ReadResult {
        guard let query = plan.main, let name = propertyPath.last else { throw ODataError(.internalError, "no main statement") }
        var writer = JSONWriter(capacity: 1024)
        var isNull = false
        try statements.with(query.sql, on: db) { (statement: Statement) throws(ODataError) in
            try statement.bind(query.parameters)
            guard try statement.step() else { throw ODataError(.notFound, "no entity '\(pathText)' in the offline store") }
            let first = SQLQuery.systemColumnCount
            if let index = query.columns.firstIndex(where: { $0.path == propertyPath }), let column = query.columns.indices.contains(index) ? query.columns[index] : nil {
                isNull = statement.isNull(at: first + index)
                if rawValue {
                    // The value as text: the writer puts strings down bare, without quotes or escapes.
                    writer.writesStringsBare = true
                    try EntityRowWriter.writeValue(statement, first + index, column, dialect: dialect, to: &writer)
                    return
                }
                writer.beginObject()
                if dialect == .v4 {
                    writer.writeKey(EntityRowWriter.contextKey)
                    writer.writeString(contextURL(pathText))
                    writer.writeKey(Self.valueKey)
                } else {
                    writer.writeKey(Self.dataKey)
                    writer.beginObject()
                    writer.writeKey(name)
                }
                try EntityRowWriter.writeValue(statement, first + index, column, dialect: dialect, to: &writer)
                if dialect == .v2 { writer.endObject() }
                writer.endObject()
                return
            }
            // A complex property: its leaves, re-nested.
            let layout = EntityLayout(typeName: query.table.entityType, columns: query.columns, firstColumn: first,
                                      admitted: Set(query.columns.map(\.declaringType)), keyColumns: [], navigations: [],
                                      dialect: dialect, stripping: propertyPath)
            let rows = EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot, query: query, select: nil)
            writer.beginObject()
            if dialect == .v4 {
                writer.writeKey(EntityRowWriter.contextKey)
                writer.writeString(contextURL(pathText))
            } else {
                writer.writeKey(Self.dataKey)
                writer.beginObject()
                writer.writeKey(name)
                writer.beginObject()
            }
            try rows.writeProperties(statement, layout, to: &writer)
            if dialect == .v2 {
                writer.endObject()
                writer.endObject()
            }
            writer.endObject()
        }
        if rawValue {
            if isNull { return ReadResult(body: [], contentType: ReadResult.textContentType, status: 204) }
            return ReadResult(body: try writer.finish(), contentType: ReadResult.textContentType)
        }
        return ReadResult(body: try writer.finish(), contentType: ReadResult.jsonContentType)
    }
}
