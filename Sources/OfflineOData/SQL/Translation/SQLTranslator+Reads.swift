/// The statements of a read: the main SELECT (collection, entity or property), the count, and
/// one statement per expanded navigation, batched over the parent rows.
extension SQLTranslator {
    static let mainAlias = "t0"

    /// `SELECT` of the addressed entities with `$filter`, `$orderby`, `$skip`, `$top` and `$select`.
    mutating func selectQuery(_ path: BoundPath, _ options: BoundQueryOptions, selecting select: [[String]]? = nil) throws(ODataError) -> SQLQuery {
        let table = try self.table(path.entitySet)
        let alias = Self.mainAlias
        if path.isCollection && (options.top != nil || options.skip != nil) {
            semiJoinUse = .whenIndexesDrive
            pageWindow = options.top.map { Double($0) + Double(options.skip ?? 0) }
        }
        let conditions = try whereConditions(path, options, alias: alias, table: table)
        let columns = try selectedColumns(table, select ?? options.select)
        let list: String
        if (select ?? options.select) == nil, let names {
            list = names.columnList(table) { columnList(alias, columns) }
        } else {
            list = columnList(alias, columns)
        }
        var sql = "SELECT " + list + " FROM \(table.quotedName) AS \(alias) WHERE " + conditions.joined(separator: " AND ")
        sql += try orderClause(options.orderBy, alias: alias, table: table, isCollection: path.isCollection)
        if path.isCollection {
            if let top = options.top {
                sql += " LIMIT \(parameters.add(SQLValue.integer(top)))"
            } else if options.skip != nil {
                sql += " LIMIT -1"
            }
            if let skip = options.skip { sql += " OFFSET \(parameters.add(SQLValue.integer(skip)))" }
        }
        return SQLQuery(sql: sql, parameters: parameters.values, table: table, columns: columns)
    }

    /// `SELECT count(*)` with the same conditions as ``selectQuery(_:_:selecting:)`` and no paging.
    mutating func countQuery(_ path: BoundPath, _ options: BoundQueryOptions) throws(ODataError) -> SQLQuery {
        let table = try self.table(path.entitySet)
        let conditions = try whereConditions(path, options, alias: Self.mainAlias, table: table)
        let sql = "SELECT count(*) FROM \(table.quotedName) AS \(Self.mainAlias) WHERE " + conditions.joined(separator: " AND ")
        return SQLQuery(sql: sql, parameters: parameters.values, table: table, columns: [])
    }

    /// The related entities of `parentCount` parents (whose `_ood_id`s are bound as the last
    /// `parentCount` parameters), with the expand's options applied per parent: `$top`/`$skip`
    /// through `ROW_NUMBER() OVER (PARTITION BY parent)`. Rows come ordered by parent.
    mutating func expandQuery(_ expand: BoundExpand, parentCount: Int) throws(ODataError) -> SQLQuery {
        let navigation = expand.navigation
        let parentTable = try table(navigation.sourceSet), table = try self.table(navigation.targetSet)
        let parent = "p0", alias = "c0"
        let options = expand.options
        // The related rows of a few parents: a list of every failing item would cost more.
        antiJoins = false
        antiJoinRead = nil
        var conditions = [try related(navigation, source: parent, target: alias), Self.notDeleted(alias)]
        if let filter = options.filter { conditions.append(try sql(filter, [.entity(alias: alias, table: table)], .condition)) }
        if let search = options.search { conditions.append(try searchSQL(search, alias: alias, table: table)) }
        let columns = try selectedColumns(table, options.select)
        let order = try orderTerms(options.orderBy, alias: alias, table: table)
        let parentIDStart = parameters.values.count
        let ids = (0..<parentCount).map { _ in parameters.add(SQLValue.null) }
        conditions.append("\(parent).\"_ood_id\" IN (\(ids.joined(separator: ", ")))")
        let from = " FROM \(parentTable.quotedName) AS \(parent) JOIN \(table.quotedName) AS \(alias) ON "
            + conditions.joined(separator: " AND ")
        let select = "SELECT \(parent).\"_ood_id\", " + columnList(alias, columns)
        var sql: String
        if options.top != nil || options.skip != nil {
            let rank = "ROW_NUMBER() OVER (PARTITION BY \(parent).\"_ood_id\" ORDER BY \(order.joined(separator: ", "))) AS ood_rank"
            sql = "SELECT * FROM (\(select), \(rank)\(from)) WHERE 1"
            let skip = options.skip ?? 0
            if skip > 0 { sql += " AND ood_rank > \(parameters.add(SQLValue.integer(skip)))" }
            if let top = options.top {
                let (end, overflow) = skip.addingReportingOverflow(top)
                sql += " AND ood_rank <= \(parameters.add(SQLValue.integer(overflow ? Int64.max : end)))"
            }
            sql += " ORDER BY 1, ood_rank"
        } else {
            sql = select + from + " ORDER BY \(parent).\"_ood_id\", " + order.joined(separator: ", ")
        }
        // The parent ids were added as placeholders; the executor binds them in their place.
        return SQLQuery(sql: sql, parameters: parameters.values, table: table, columns: columns, leadingColumns: 1,
                        parentIDStart: parentIDStart)
    }

    /// `$expand=Nav($count=true;...)`: per parent, the number of related entities that pass the
    /// expand's `$filter` (before its `$top`/`$skip`), as rows `(parent _ood_id, count)`; parents
    /// without any related entity have no row. Parent ids are bound as in `expandQuery`.
    mutating func expandCountQuery(_ expand: BoundExpand, parentCount: Int) throws(ODataError) -> SQLQuery {
        let navigation = expand.navigation
        let parentTable = try table(navigation.sourceSet), table = try self.table(navigation.targetSet)
        let parent = "p0", alias = "c0"
        // The related rows of a few parents: a list of every failing item would cost more.
        antiJoins = false
        antiJoinRead = nil
        var conditions = [try related(navigation, source: parent, target: alias), Self.notDeleted(alias)]
        if let filter = expand.options.filter {
            conditions.append(try sql(filter, [.entity(alias: alias, table: table)], .condition))
        }
        if let search = expand.options.search { conditions.append(try searchSQL(search, alias: alias, table: table)) }
        let parentIDStart = parameters.values.count
        let ids = (0..<parentCount).map { _ in parameters.add(SQLValue.null) }
        conditions.append("\(parent).\"_ood_id\" IN (\(ids.joined(separator: ", ")))")
        let sql = "SELECT \(parent).\"_ood_id\", count(*) FROM \(parentTable.quotedName) AS \(parent) JOIN \(table.quotedName) AS \(alias) ON "
            + conditions.joined(separator: " AND ") + " GROUP BY \(parent).\"_ood_id\""
        return SQLQuery(sql: sql, parameters: parameters.values, table: table, columns: [], leadingColumns: 1,
                        parentIDStart: parentIDStart)
    }

    // MARK: Pieces

    private mutating func whereConditions(_ path: BoundPath, _ options: BoundQueryOptions, alias: String,
                                          table: EntitySetTable) throws(ODataError) -> [String] {
        antiJoins = true
        antiJoinRead = (path, options, table)
        var conditions = [Self.notDeleted(alias)]
        if let types = path.castTypes { conditions.append(typeCondition(types, table: table, alias: alias)) }
        if let last = path.steps.last {
            if let key = last.key { conditions.append(try keyCondition(key, table: table, alias: alias)) }
            conditions.append(try pathChain(path, step: path.steps.count - 1, child: alias))
        } else if let key = path.rootKey {
            conditions.append(try keyCondition(key, table: table, alias: alias))
        }
        if let filter = options.filter {
            conditions.append(try sql(filter, [.entity(alias: alias, table: table)], .condition))
        }
        if let search = options.search { conditions.append(try searchSQL(search, alias: alias, table: table)) }
        return conditions
    }

    /// `EXISTS` over the parent of navigation step `step`, recursively back to the root key.
    private mutating func pathChain(_ path: BoundPath, step: Int, child: String) throws(ODataError) -> String {
        guard path.steps.indices.contains(step) else { return "1" }
        let navigation = path.steps[step].navigation
        let parentTable = try table(navigation.sourceSet)
        let parent = newAlias("p")
        var conditions = [try related(navigation, source: parent, target: child), Self.notDeleted(parent)]
        let parentKey = step == 0 ? path.rootKey : path.steps[step - 1].key
        if let parentKey { conditions.append(try keyCondition(parentKey, table: parentTable, alias: parent)) }
        if step > 0 { conditions.append(try pathChain(path, step: step - 1, child: parent)) }
        return "EXISTS (SELECT 1 FROM \(parentTable.quotedName) AS \(parent) WHERE \(conditions.joined(separator: " AND ")))"
    }

    private mutating func orderClause(_ orderBy: [BoundOrderBy], alias: String, table: EntitySetTable, isCollection: Bool) throws(ODataError) -> String {
        guard isCollection else { return "" }
        return " ORDER BY " + (try orderTerms(orderBy, alias: alias, table: table)).joined(separator: ", ")
    }

    /// The `ORDER BY` terms of a read: `$orderby`'s, then the key columns it did not name, then
    /// `_ood_id`. Without `$orderby` that is key order, the order a service pages in, and the key
    /// index delivers it: a range on the key or an indexed property with `$top` reads only the
    /// rows it returns instead of sorting the table (rows came in `_ood_id` order before; downloads
    /// arrive in key order, so their answers are the same). `_ood_id` only breaks ties between
    /// entities without a key yet; it follows the direction of the term before it, so a
    /// descending key is still read backwards from its index.
    private mutating func orderTerms(_ orderBy: [BoundOrderBy], alias: String, table: EntitySetTable) throws(ODataError) -> [String] {
        var terms: [String] = []
        var named: Set<String> = []
        var lastDescending = false
        for item in orderBy {
            let value = try sql(item.expression, [.entity(alias: alias, table: table)], .value)
            named.insert(value)
            terms.append(value + (isDecimal(item.expression.type) ? " COLLATE \"OOD_DECIMAL\"" : "") + (item.descending ? " DESC" : ""))
            lastDescending = item.descending
        }
        for column in table.keyColumns {
            let value = "\(alias).\(column.quotedName)"
            guard !named.contains(value) else { continue }
            terms.append(value)
            lastDescending = false
        }
        terms.append("\(alias).\"_ood_id\"" + (lastDescending ? " DESC" : ""))
        return terms
    }

    func columnList(_ alias: String, _ columns: [StoredColumn]) -> String {
        (SQLQuery.systemColumns.map { "\(alias).\(quoteIdentifier($0))" } + columns.map { "\(alias).\($0.quotedName)" })
            .joined(separator: ", ")
    }

    /// Every column, or those under the selected paths plus the key.
    func selectedColumns(_ table: EntitySetTable, _ select: [[String]]?) throws(ODataError) -> [StoredColumn] {
        guard let select else { return table.columns }
        return table.columns.filter { column in
            table.keyColumns.contains(column) || select.contains { path in column.path.starts(with: path) }
        }
    }
}
