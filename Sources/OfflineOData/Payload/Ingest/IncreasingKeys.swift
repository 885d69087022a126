/// A staging table's rows written while their keys only grow (``StagingTable``): a key larger
/// than every key written before it cannot repeat one, so such rows go in without the key's
/// unique index, which the swap builds once over all of them anyway. Keeping that index up to
/// date row by row was a fifth of the cost of writing a staged row (issue 38).
///
/// Services page a collection in key order, so a first download usually never needs the index
/// before its swap. The first key that does not grow (a repeat on a later page, a page out of
/// order) or a removal by key builds it (``TablePlan/indexKeys(in:)``): from then on the rows are
/// matched by their key, as in any table. Only for a key of one integer column, whose values
/// compare in Swift as SQLite compares them.
final class IncreasingKeys {
    /// Index into the plan's columns of the key's column.
    let column: Int
    /// The largest key written so far; nil before the first.
    var last: Int64?
    /// The `CREATE UNIQUE INDEX` of the table's key.
    let indexStatement: String

    init(column: Int, last: Int64?, indexStatement: String) {
        self.column = column
        self.last = last
        self.indexStatement = indexStatement
    }
}

extension TablePlan {
    /// The column of a key of one integer column (the only keys written by growing value).
    var integerKeyColumn: Int? {
        guard keyIndices.count == 1, let column = keyIndices.first, table.columns.indices.contains(column),
              let type = table.columns[column].primitiveType, StorageForm.of(type) == .integer else { return nil }
        return column
    }

    /// Whether `state` may be written while the table has no key index: true when the table has
    /// its index (or never goes without), or when the entity's key is larger than every key
    /// written so far (then recorded as the largest). False when the index is needed first.
    func keepsKeysIncreasing(_ state: EntityState) -> Bool {
        guard let order = increasingKeys else { return true }
        guard state.values.indices.contains(order.column), case .integer(let key) = state.values[order.column] else { return false }
        if let last = order.last, key <= last { return false }
        order.last = key
        return true
    }

    /// Builds the table's key index, if it was written without one: rows come in any order from
    /// now on. The rows written so far have growing keys, so the unique index takes them all.
    func indexKeys(in db: SQLiteConnection) throws(ODataError) {
        guard let order = increasingKeys else { return }
        try db.execute(order.indexStatement)
        increasingKeys = nil
    }
}
