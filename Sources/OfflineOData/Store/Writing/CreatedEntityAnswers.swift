/// The answer to an offline create: the entity as the insert stored it (defaults and provisional
/// key included), shaped as a service answers a create, so the caller learns its address.
///
/// It is written from the row read back by its local id right after the insert
/// (``EntitySetTable/responseRowColumns``; a `RETURNING` clause would make SQLite build a temporary
/// table per row, which costs more than the lookup). The store keeps one instance across writes, with a row writer
/// per entity set, since a writer's layout costs more to build than the answer to write; it is
/// used only under the write connection's lock, which serializes every write.
final class CreatedEntityAnswers {
    /// A set's row writer and its V4 context URL, changed in place: one dictionary lookup per
    /// answer, and the context is not assembled again for every create.
    private final class SetWriter {
        var rows: EntityRowWriter
        let context: String

        init(rows: EntityRowWriter, context: String) {
            self.rows = rows
            self.context = context
        }
    }

    private var writers: [String: SetWriter] = [:]

    /// The JSON of the row `statement` stands on, an entity of `table`.
    func body(of statement: Statement, table: EntitySetTable, model: MetadataModel, dialect: Dialect,
              serviceRoot: String) throws(ODataError) -> [UInt8] {
        let set: SetWriter
        if let kept = writers[table.entitySet], kept.rows.serviceRoot == serviceRoot {
            set = kept
        } else {
            set = SetWriter(rows: EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot,
                                                  query: SQLQuery(sql: "", parameters: [], table: table, columns: table.columns),
                                                  select: nil),
                            context: serviceRoot + "$metadata#" + table.entitySet + "/$entity")
            writers[table.entitySet] = set
        }
        var writer = JSONWriter(capacity: 512)
        if dialect == .v4 {
            try set.rows.write(statement, expanded: [], context: set.context, to: &writer)
        } else {
            writer.beginObject()
            writer.writeKey(LocalReader.dataKey)
            try set.rows.write(statement, expanded: [], to: &writer)
            writer.endObject()
        }
        return try writer.finish()
    }
}
