/// The answer to an offline create: the entity as the insert stored it (defaults and provisional
/// key included), shaped as a service answers a create, so the caller learns its address.
///
/// It is written from the insert's own `RETURNING` row: no second statement, no read.
struct CreatedEntityAnswer {
    let model: MetadataModel
    let dialect: Dialect
    let serviceRoot: String
    let table: EntitySetTable
    var layouts: LayoutCache?

    /// The system columns the row writer expects, then every stored column.
    static func returningColumns(of table: EntitySetTable) -> String {
        (["\"_ood_id\"", "\"_ood_etag\"", "\"_ood_type\"", "\"_ood_change\"", "\"_ood_error\""] + table.columns.map(\.quotedName))
            .joined(separator: ", ")
    }

    /// The JSON of the row `statement` stands on.
    func body(of statement: Statement) throws(ODataError) -> [UInt8] {
        let query = SQLQuery(sql: "", parameters: [], table: table, columns: table.columns)
        var rows = EntityRowWriter(model: model, dialect: dialect, serviceRoot: serviceRoot, query: query, select: nil, cache: layouts)
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
