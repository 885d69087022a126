/// The answer to an offline create: the entity as the insert stored it (defaults and provisional
/// key included), shaped as a service answers a create, so the caller learns its address.
///
/// It is written from the row read back by its local id right after the insert
/// (``EntitySetTable/responseRowColumns``; a `RETURNING` clause would make SQLite build a temporary
/// table per row, which costs more than the lookup). The store keeps one instance across writes, with a row writer
/// per entity set, since a writer's layout costs more to build than the answer to write; it is
/// used only under the write connection's lock, which serializes every write.
final class CreatedEntityAnswers {
    private var writers: [String: EntityRowWriter] = [:]

    /// The JSON of the row `statement` stands on, an entity of `table`.
    func body(of statement: Statement, table: EntitySetTable, model: MetadataModel, dialect: Dialect,
              serviceRoot: String) throws(ODataError) -> [UInt8] {
        let key = table.entitySet
        var rows = writers.removeValue(forKey: key).flatMap { $0.serviceRoot == serviceRoot ? $0 : nil }
            ?? EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot,
                               query: SQLQuery(sql: "", parameters: [], table: table, columns: table.columns), select: nil)
        defer { writers[key] = rows }
        var writer = JSONWriter(capacity: 512)
        if dialect == .v4 {
            try rows.write(statement, expanded: [], context: serviceRoot + "$metadata#" + table.entitySet + "/$entity", to: &writer)
        } else {
            writer.beginObject()
            writer.writeKey(LocalReader.dataKey)
            try rows.write(statement, expanded: [], to: &writer)
            writer.endObject()
        }
        return try writer.finish()
    }
}
