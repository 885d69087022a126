/// Translates bound reads into SQL over the store schema (DESIGN.md §3, §5): one statement per
/// read, every value a bound parameter, OData's semantics where SQL's differ.
///
/// Decisions:
/// - Entities whose `_ood_change` is `'deleted'` are never returned, counted or matched.
/// - Without `$orderby`, rows come in key order (then `_ood_id`, for entities without a key); with
///   it, the key and then `_ood_id` break ties, so `$skip`/`$top` pages are stable and the key
///   index serves ranges and `$top` (``orderTerms(_:alias:table:)``).
/// - Ascending order puts nulls first and descending last, as OData and SQLite both do.
struct SQLTranslator {
    let schema: StoreSchema
    /// `now()` for this read, canonical UTC text; fixed once so the whole statement sees one instant.
    let now: String
    /// Whether the SQL holds `now` (a `now()` in the read): such a translation is not reused.
    var readsClock = false
    var parameters = SQLParameters()
    private var aliasCounter = 0
    /// How deep ``sql(_:_:_:)`` is nested now; see ``maxExpressionDepth``.
    var expressionDepth = 0
    /// The deepest nesting of expressions translated (32): SQLite's parser has a fixed stack that
    /// holds about 30 nested function calls or 50 nested parentheses, and every level nests the
    /// SQL once or twice. A deeper expression (`Price add 1 add 1 ...` with dozens of operators,
    /// parentheses nested dozens deep) is refused as `.unsupported` before its SQL is written, so
    /// the translator's recursion stays shallow too. Chains of `and` or `or` do not count: their
    /// SQL is flat, `a AND b AND c`, grouped in parentheses every ``logicalGroupSize`` operands.
    static let maxExpressionDepth = 32
    /// Operands joined flat in one parenthesized group of an `and`/`or` chain (16): a chain of n
    /// operands nests log16(n) deep, and no group is taller than SQLite's expression depth limit (1000).
    static let logicalGroupSize = 16
    /// Operands of `and`/`or` chains translated so far, see ``maxLogicalOperands``.
    var logicalOperands = 0
    /// The most operands of `and` and `or` in one statement (10,000). SQLite compiles each
    /// condition's values once and compares every new value with those before it, so compiling
    /// n conditions takes time in n² (5,000 took 0.2 s here, 20,000 six seconds); a longer filter
    /// is refused as `.unsupported`. A long `in` list has no such cost and no such limit.
    static let maxLogicalOperands = 10_000
    /// When navigation paths and `any` become semi-joins (``navigationSemiJoin(_:_:test:)``):
    /// always, except in a read with `$top` or `$skip` (``SemiJoinUse``).
    var semiJoinUse = SemiJoinUse.always
    /// The columns that lead an index, for ``SemiJoinUse/whenIndexesDrive`` and ``antiJoins``.
    var indexed = IndexedColumns.none
    /// `$top` + `$skip` of a page (nil without `$top`), for ``pageThreshold(_:)``.
    var pageWindow: Double?
    /// The connection the matches of a paged navigation filter are counted on where
    /// `sqlite_stat1` cannot say (a range, a value of a column whose values repeat:
    /// ``DrivenMatches``); nil counts nothing: equalities take the statistics' average, ranges
    /// the shape.
    var probe: SQLiteConnection?
    /// Whether `all` may become an anti-join (``allAntiJoin(_:_:)``): its list of failing items is
    /// made whole, so not where the rows tested are few (``antiJoinsAllowed(_:_:table:)``).
    var antiJoins = true
    /// The read whose first `all` decides ``antiJoins`` (``decideAntiJoins()``): most reads have
    /// none, so they do not pay for walking their filter.
    var antiJoinRead: (path: BoundPath, options: BoundQueryOptions, table: EntitySetTable)?
    /// Whether ``antiJoins`` was decided by ``indexed``.
    var antiJoinsReadIndexes = false
    /// Whether the SQL depends on ``indexed`` (a paged navigation filter, an `all`): such a
    /// translation is made again once an index is made or dropped.
    var readsIndexes = false
    /// Schema-only SQL text shared across translations, when the caller keeps one.
    let names: SQLNameCache?

    init(schema: StoreSchema, now: String, names: SQLNameCache? = nil, indexed: IndexedColumns = .none, probe: SQLiteConnection? = nil) {
        self.schema = schema
        self.indexed = indexed
        self.probe = probe
        self.now = now
        self.names = names
    }

    mutating func newAlias(_ prefix: String = "a") -> String {
        aliasCounter += 1
        return "\(prefix)\(aliasCounter)"
    }

    func table(_ entitySet: String) throws(ODataError) -> EntitySetTable {
        guard let table = schema.table(forEntitySet: entitySet) else {
            throw ODataError(.internalError, "the store has no table for entity set '\(entitySet)'")
        }
        return table
    }

    static func notDeleted(_ alias: String) -> String { "\(alias).\"_ood_change\" IS NOT 'deleted'" }

    func column(_ table: EntitySetTable, _ path: [String]) throws(ODataError) -> StoredColumn {
        let found = path.count == 1 ? path.first.flatMap { table.column(named: $0) } : table.column(path: path)
        guard let column = found else {
            throw ODataError(.unsupported, "'\(path.joined(separator: "/"))' of '\(table.entitySet)' is not stored as a column, so the offline store cannot filter or sort on it")
        }
        return column
    }

    /// The condition that relates a row `source` of the navigation's source set to a row `target`
    /// of its target set: equal constrained columns, or a pair in `ood_link` (either direction).
    mutating func related(_ navigation: BoundNavigation, source: String, target: String) throws(ODataError) -> String {
        let sourceTable = try table(navigation.sourceSet), targetTable = try table(navigation.targetSet)
        switch navigation.join {
        case .columns(let pairs):
            var terms: [String] = []
            for pair in pairs {
                let sourceColumn = try column(sourceTable, [pair.source]), targetColumn = try column(targetTable, [pair.target])
                terms.append("\(target).\(targetColumn.quotedName) = \(source).\(sourceColumn.quotedName)")
            }
            return terms.isEmpty ? "0" : terms.joined(separator: " AND ")
        case .linkTable(let name, let partner):
            let link = newAlias("l")
            let sourceSet = parameters.add(SQLValue.text(navigation.sourceSet)), navigationName = parameters.add(SQLValue.text(name))
            var condition = "EXISTS (SELECT 1 FROM ood_link \(link) WHERE \(link).source_set = \(sourceSet) AND \(link).navigation = \(navigationName)"
                + " AND \(link).source_id = \(source).\"_ood_id\" AND \(link).target_id = \(target).\"_ood_id\")"
            if let partner {
                let back = newAlias("l")
                let targetSet = parameters.add(SQLValue.text(navigation.targetSet)), partnerName = parameters.add(SQLValue.text(partner))
                condition = "(\(condition) OR EXISTS (SELECT 1 FROM ood_link \(back) WHERE \(back).source_set = \(targetSet) AND \(back).navigation = \(partnerName)"
                    + " AND \(back).source_id = \(target).\"_ood_id\" AND \(back).target_id = \(source).\"_ood_id\"))"
            }
            return condition
        }
    }

    /// `alias.key = ?` for each key property.
    mutating func keyCondition(_ key: [BoundKeyValue], table: EntitySetTable, alias: String) throws(ODataError) -> String {
        var terms: [String] = []
        for value in key {
            let column = try column(table, [value.property])
            terms.append("\(alias).\(column.quotedName) = \(parameters.add(value.value))")
        }
        return terms.joined(separator: " AND ")
    }

    /// `coalesce(_ood_type, set type) IN (...)`: entities of one of `types` (a cast or `isof`).
    mutating func typeCondition(_ types: [String], table: EntitySetTable, alias: String) -> String {
        let base = parameters.add(SQLValue.text(table.entityType))
        let list = types.map { parameters.add(SQLValue.text($0)) }.joined(separator: ", ")
        return "coalesce(\(alias).\"_ood_type\", \(base)) IN (\(list))"
    }
}
