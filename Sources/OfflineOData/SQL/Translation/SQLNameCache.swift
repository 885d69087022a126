/// SQL text that depends only on the schema, kept across translations: the quoted list of every
/// column of a table, which a read without `$select` repeats each time.
final class SQLNameCache {
    private var columnLists: [String: String] = [:]

    func columnList(_ table: EntitySetTable, make: () -> String) -> String {
        if let known = columnLists[table.name] { return known }
        let list = make()
        columnLists[table.name] = list
        return list
    }
}
