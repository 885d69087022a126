/// Canonical functions, lambdas and `$count` in expressions.
///
/// - String functions and comparisons are case-sensitive; `contains`/`startswith`/`endswith` work on
///   the bytes (`instr`, `substr` over `CAST(... AS BLOB)`), so `%`, `_` and NUL are ordinary
///   characters and no `LIKE` is involved. `indexof`/`substring` count characters from 0.
/// - Date parts read the canonical stored text. A DateTimeOffset's parts are those of its own
///   offset, as the specification says (`hour(2023-05-15T01:30:00+05:30)` is 1): the store keeps
///   the offset after the UTC form (``StoredInstant``), which `ood_instant_local` applies.
/// - `round` rounds half away from zero (SQLite's `round`, `ood_decimal_round`).
extension SQLTranslator {
    mutating func functionSQL(_ function: CanonicalFunction, _ arguments: [BoundExpression], type: BoundType,
                              _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        var args: [String] = []
        for argument in arguments { args.append(try sql(argument, scopes, .value)) }
        func arg(_ index: Int) -> String { args.indices.contains(index) ? args[index] : "NULL" }
        func blob(_ index: Int) -> String { "CAST(\(arg(index)) AS BLOB)" }
        let firstType = arguments.first?.type.primitive
        // The parts of a DateTimeOffset are read from its local date and time.
        if firstType == .dateTimeOffset, !args.isEmpty,
           [.year, .month, .day, .hour, .minute, .second, .fractionalseconds, .date, .time].contains(function) {
            args[0] = "ood_instant_local(\(args[0]))"
        }
        switch function {
        case .contains, .substringof:
            return "(instr(\(blob(0)), \(blob(1))) > 0)"
        case .startswith:
            return "(instr(\(blob(0)), \(blob(1))) = 1)"
        case .endswith:
            return "(CASE WHEN \(arg(0)) IS NULL OR \(arg(1)) IS NULL THEN NULL WHEN length(\(blob(1))) = 0 THEN 1"
                + " ELSE substr(\(blob(0)), -length(\(blob(1)))) = \(blob(1)) END)"
        case .indexof:
            return "(instr(\(arg(0)), \(arg(1))) - 1)"
        case .length:
            return "length(\(arg(0)))"
        case .substring:
            if args.count == 3 { return "substr(\(arg(0)), max(\(arg(1)), 0) + 1, max(\(arg(2)), 0))" }
            return "substr(\(arg(0)), max(\(arg(1)), 0) + 1)"
        case .tolower: return "ood_lower(\(arg(0)))"
        case .toupper: return "ood_upper(\(arg(0)))"
        case .trim: return "trim(\(arg(0)))"
        case .concat: return "(\(arg(0)) || \(arg(1)))"
        // V2 replace: every occurrence, case-sensitive, as SQLite's replace (null in, null out).
        case .replace: return "replace(\(arg(0)), \(arg(1)), \(arg(2)))"
        case .year: return "CAST(substr(\(arg(0)), 1, 4) AS INTEGER)"
        case .month: return "CAST(substr(\(arg(0)), 6, 2) AS INTEGER)"
        case .day: return "CAST(substr(\(arg(0)), 9, 2) AS INTEGER)"
        case .hour, .minute, .second, .fractionalseconds:
            let isTime = firstType == .timeOfDay || firstType == .time
            let start = (isTime ? 1 : 12) + (function == .minute ? 3 : function == .second ? 6 : 0)
            if function == .fractionalseconds { return "('0' || substr(\(arg(0)), \(isTime ? 9 : 20), 8))" }
            return "CAST(substr(\(arg(0)), \(start), 2) AS INTEGER)"
        case .date: return "substr(\(arg(0)), 1, 10)"
        case .time: return "substr(\(arg(0)), 12, 16)"
        case .totaloffsetminutes: return "ood_instant_offset(\(arg(0)))"
        case .totalseconds: return arg(0)
        case .now:
            readsClock = true
            return parameters.add(SQLValue.text(now))
        case .mindatetime: return parameters.add(SQLValue.text("0001-01-01T00:00:00.0000000Z"))
        case .maxdatetime: return parameters.add(SQLValue.text("9999-12-31T23:59:59.9999999Z"))
        case .round, .floor, .ceiling:
            guard let numeric = firstType, !TypePromotion.isInteger(numeric) else { return arg(0) }
            if numeric == .decimal { return "ood_decimal_\(function.rawValue)(\(arg(0)))" }
            // Doubles (INF, NaN and values beyond 64-bit integers too) with IEEE rounding.
            return "ood_real_\(function.rawValue)(\(arg(0)))"
        // A regular expression (`MatchPattern`), true where it matches anywhere in the text.
        case .matchesPattern: return "ood_matches(\(arg(0)), \(arg(1)))"
        case .cast, .isof:
            throw ODataError(.internalError, "\(function.rawValue) is bound to a type test or cast, not a function call")
        case .hassubset, .hassubsequence:
            throw ODataError(.unsupported, "\(function.rawValue) is not supported in offline $filter")
        }
    }

    /// `any` as `EXISTS`, `all` as `NOT EXISTS` of an item that does not satisfy the predicate
    /// (a null predicate does not satisfy it).
    mutating func lambdaSQL(_ lambda: BoundLambda, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        try overSource(lambda.source, scopes) { (translator: inout SQLTranslator, from: String, itemScope: ScopeAlias, baseCondition: String) throws(ODataError) -> String in
            var inner = scopes
            while inner.count < lambda.scope { inner.append(itemScope) }
            inner.append(itemScope)
            var condition = baseCondition
            if let predicate = lambda.predicate {
                let test = try translator.sql(predicate, inner, lambda.quantifier == .any ? .condition : .value)
                condition += lambda.quantifier == .any ? " AND \(test)" : " AND (\(test)) IS NOT 1"
            } else if lambda.quantifier == .all {
                // all() with no predicate holds; the condition stays so its parameters stay bound.
                condition += " AND 0"
            }
            let exists = "EXISTS (SELECT 1 FROM \(from) WHERE \(condition))"
            return lambda.quantifier == .any ? exists : "(NOT \(exists))"
        }
    }

    mutating func countSQL(_ source: BoundCollectionSource, _ scopes: [ScopeAlias]) throws(ODataError) -> String {
        if case .items(let member, _) = source {
            return "coalesce(json_array_length(\(try memberSQL(member, scopes))), 0)"
        }
        return try overSource(source, scopes) { (_: inout SQLTranslator, from: String, _: ScopeAlias, condition: String) throws(ODataError) -> String in
            "(SELECT count(*) FROM \(from) WHERE \(condition))"
        }
    }

    /// Calls `body` with the FROM clause and base condition of the collection's items, wrapped in
    /// the to-one navigations that lead to it.
    private mutating func overSource(_ source: BoundCollectionSource, _ scopes: [ScopeAlias],
                                     _ body: (inout SQLTranslator, String, ScopeAlias, String) throws(ODataError) -> String) throws(ODataError) -> String {
        switch source {
        case .items(let member, _):
            let collection = try memberSQL(member, scopes)
            let alias = newAlias("j")
            return try body(&self, "json_each(\(collection)) AS \(alias)", .item(alias: alias), "1")
        case .navigation(let scope, let path, let navigation, let casts):
            guard scopes.indices.contains(scope), case .entity(let start, let startTable) = scopes[scope] else {
                throw ODataError(.internalError, "range variable \(scope) is not an entity")
            }
            var parent = start
            var wrappers: [(String, String)] = []
            for (index, step) in path.enumerated() {
                let table = try self.table(step.targetSet)
                let alias = newAlias()
                var condition = try related(step, source: parent, target: alias) + " AND " + Self.notDeleted(alias)
                if let cast = castCondition(casts, hop: index + 1, table: table, alias: alias) { condition += " AND " + cast }
                wrappers.append(("\(table.quotedName) AS \(alias)", condition))
                parent = alias
            }
            let target = try self.table(navigation.targetSet)
            let alias = newAlias("v")
            let condition = try related(navigation, source: parent, target: alias) + " AND " + Self.notDeleted(alias)
            var text = try body(&self, "\(target.quotedName) AS \(alias)", .entity(alias: alias, table: target), condition)
            for (from, condition) in wrappers.reversed() {
                text = "coalesce((SELECT \(text) FROM \(from) WHERE \(condition) LIMIT 1), 0)"
            }
            // A cast the entity itself fails is a null path, like a missing target: no items.
            if let cast = castCondition(casts, hop: 0, table: startTable, alias: start) { text = "(CASE WHEN \(cast) THEN \(text) ELSE 0 END)" }
            return text
        }
    }
}
