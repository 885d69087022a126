/// `$expand`: one statement per expanded navigation and level, over all parent rows at once
/// (`IN (...)` of the parents' `_ood_id`, chunked below SQLite's parameter limit), never one
/// statement per parent. Related entities are written to JSON first, grouped by parent, and
/// copied into each parent's object as it is written.
extension LocalReader {
    /// The expanded navigations of the parents in `parents` (which is stepped once and rewound).
    func expandedEntities(_ expands: [BoundExpand], parents: Statement, idColumn: Int,
                          on db: SQLiteConnection) throws(ODataError) -> [ExpandedEntities] {
        guard !expands.isEmpty else { return [] }
        var ids: [Int64] = []
        while try parents.step() { ids.append(parents.int(at: idColumn)) }
        parents.rewind()
        var result: [ExpandedEntities] = []
        for expand in expands { result.append(try load(expand, parentIDs: ids, on: db)) }
        return result
    }

    private func load(_ expand: BoundExpand, parentIDs: [Int64], on db: SQLiteConnection) throws(ODataError) -> ExpandedEntities {
        var entities = ExpandedEntities(name: expand.navigation.name, isCollection: expand.navigation.isCollection)
        var writer = JSONWriter(capacity: 4096)
        var start = 0
        while start < parentIDs.count {
            let chunk = parentIDs[start..<min(start + Self.expandChunkSize, parentIDs.count)]
            start += chunk.count
            var translator = SQLTranslator(schema: schema, now: ReadTranslation.currentInstantText())
            let query = try translator.expandQuery(expand, parentCount: chunk.count)
            var parameters = query.parameters
            for (offset, id) in chunk.enumerated() where parameters.indices.contains(query.parentIDStart + offset) {
                parameters[query.parentIDStart + offset] = .integer(id)
            }
            try statements.with(query.sql, on: db) { (statement: Statement) throws(ODataError) in
                try statement.bind(parameters)
                let nested = try expandedEntities(expand.options.expand, parents: statement, idColumn: 1, on: db)
                let rows = EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot, query: query, select: expand.options.select, cache: layouts)
                var current: Int64?
                var groupStart = 0
                while try statement.step() {
                    let parent = statement.int(at: 0)
                    if parent != current {
                        if let current { close(&writer, &entities, parent: current, from: groupStart) }
                        current = parent
                        groupStart = valueStart(writer)
                        if entities.isCollection { writer.beginArray() }
                    } else if !entities.isCollection {
                        continue
                    }
                    try rows.write(statement, expanded: nested, to: &writer)
                }
                if let current { close(&writer, &entities, parent: current, from: groupStart) }
            }
            if expand.options.includeCount && entities.isCollection {
                try count(expand, parentIDs: chunk, into: &entities, on: db)
            }
        }
        entities.buffer = writer.bytes
        return entities
    }

    /// `$expand=Nav($count=true)`: the related entities' count per parent of `chunk`.
    private func count(_ expand: BoundExpand, parentIDs chunk: ArraySlice<Int64>, into entities: inout ExpandedEntities,
                       on db: SQLiteConnection) throws(ODataError) {
        var translator = SQLTranslator(schema: schema, now: ReadTranslation.currentInstantText())
        let query = try translator.expandCountQuery(expand, parentCount: chunk.count)
        var parameters = query.parameters
        for (offset, id) in chunk.enumerated() where parameters.indices.contains(query.parentIDStart + offset) {
            parameters[query.parentIDStart + offset] = .integer(id)
        }
        var counts = entities.counts ?? [:]
        try statements.with(query.sql, on: db) { (statement: Statement) throws(ODataError) in
            try statement.bind(parameters)
            while try statement.step() { counts[statement.int(at: 0)] = statement.int(at: 1) }
        }
        entities.counts = counts
    }

    /// Where the next top-level value will start (after the comma the writer puts between them).
    private func valueStart(_ writer: JSONWriter) -> Int {
        writer.bytes.isEmpty ? 0 : writer.bytes.count + 1
    }

    private func close(_ writer: inout JSONWriter, _ entities: inout ExpandedEntities, parent: Int64, from start: Int) {
        if entities.isCollection { writer.endArray() }
        entities.ranges[parent] = start..<writer.bytes.count
    }
}
