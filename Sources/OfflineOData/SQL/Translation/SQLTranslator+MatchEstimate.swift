/// How many rows a paged navigation filter matches, estimated from SQLite's statistics, so that
/// a page chooses between the semi-join and the correlated form by numbers (issue 38).
///
/// In a page (`$top`), the semi-join finds every match through indexes and sorts them: its cost
/// follows the matches, m. The correlated form walks the rows in the page's order and tests
/// each until the page is full: with R rows and a window of W (`$top` + `$skip`), it tests
/// about W·R/m of them. The semi-join is chosen where m ≤ √(W·R), the point where both read
/// about as many rows (measured at 1,000,000: a one-city-of-20 `eq` then 50,000 matches against
/// a few hundred rows tested, a selective range a few matches against a walk of the table).
///
/// m and R come from `sqlite_stat1` (``IndexedColumns``): each navigation on the way multiplies
/// the matches of the last entity by the rows per value of the index on its source's column. An
/// `eq` (or `in`) on a column whose every value is one row matches that many; on any other, the
/// average rows per value says nothing of the value asked (a status most rows share, a value
/// none has), and a range `sqlite_stat1` says nothing of at all: those are counted in the index,
/// when the read is translated, up to just past the threshold (a bounded `count(*)` with the
/// request's values bound, through ``SQLTranslator/probe``; without one, an equality takes the
/// average). Where the statistics are missing (a store never analysed), the shape decides as
/// before (``SQLTranslator/semiJoinDrives(_:_:)``).
enum DrivenMatches: Equatable {
    /// Indexes cannot find the matches: the correlated form.
    case notDriven
    /// Indexes can, but no statistics say how many there are.
    case unknown
    /// About this many rows of the filtered entity match.
    case about(Double)

    /// Of two conjuncts, the one SQLite would rather drive from: the fewer known matches.
    func narrower(_ other: DrivenMatches) -> DrivenMatches {
        switch (self, other) {
        case (.about(let a), .about(let b)): .about(min(a, b))
        case (.about, _): self
        case (_, .about): other
        case (.unknown, _), (_, .unknown): .unknown
        default: .notDriven
        }
    }
}

extension SQLTranslator {
    /// Whether `test`, in a page, is written as a semi-join: by the estimated matches where the
    /// statistics give them, else by the shape alone.
    func semiJoinPays(_ test: BoundExpression, _ scopes: [ScopeAlias]) -> Bool {
        switch drivenMatches(test, scopes) {
        case .notDriven:
            return false
        case .unknown:
            return semiJoinDrives(test, scopes)
        case .about(let matches):
            guard let threshold = pageThreshold(scopes) else { return semiJoinDrives(test, scopes) }
            return matches <= threshold
        }
    }

    /// √(W·R) for the read's table (scope 0); nil where its rows are not known.
    func pageThreshold(_ scopes: [ScopeAlias]) -> Double? {
        guard let first = scopes.first, case .entity(_, let table) = first, let rows = indexed.rows(table), rows > 0 else { return nil }
        return (min(pageWindow ?? rows, rows) * rows).squareRoot()
    }

    /// The rows of the entity of `scopes` that `test` matches, where indexes find them.
    func drivenMatches(_ test: BoundExpression, _ scopes: [ScopeAlias]) -> DrivenMatches {
        switch test.kind {
        case .and:
            return Self.conjuncts(of: test).reduce(DrivenMatches.notDriven) { $0.narrower(drivenMatches($1, scopes)) }
        case .comparison(let op, let lhs, let rhs):
            let member: BoundMember, memberSide: BoundExpression, memberOnLeft: Bool
            if case .member(let left) = lhs.kind, Self.isRequestValue(rhs) {
                (member, memberSide, memberOnLeft) = (left, lhs, true)
            } else if case .member(let right) = rhs.kind, Self.isRequestValue(lhs) {
                (member, memberSide, memberOnLeft) = (right, rhs, false)
            } else {
                return .notDriven
            }
            guard op != .ne else { return .notDriven }
            let counted = { (table: EntitySetTable) -> Double? in
                let own = Self.ownMember(member, memberSide)
                let moved = BoundExpression(.comparison(op, memberOnLeft ? own : lhs, memberOnLeft ? rhs : own),
                                            type: .primitive(.boolean), range: memberSide.range)
                return countedMatches(moved, table: table, scopes)
            }
            return memberMatches(member, scopes) { table, column in
                if op == .eq { return valueMatches(indexed.rowsPerValue(table, column), items: 1, count: { counted(table) }) }
                return counted(table)
            }
        case .in(let operand, let items):
            guard case .member(let member) = operand.kind, items.allSatisfy(Self.isRequestValue) else { return .notDriven }
            return memberMatches(member, scopes) { table, column in
                valueMatches(indexed.rowsPerValue(table, column), items: items.count) {
                    let own = Self.ownMember(member, operand)
                    return countedMatches(BoundExpression(.in(own, items), type: test.type, range: test.range), table: table, scopes)
                }
            }
        case .lambda(let lambda):
            guard lambda.quantifier == .any, let predicate = lambda.predicate,
                  case .navigation(let scope, let path, let collection, _) = lambda.source, path.isEmpty,
                  scopes.indices.contains(scope), case .entity(_, let start) = scopes[scope],
                  let hopped = hop(collection, from: start) else { return .notDriven }
            var inner = scopes
            while inner.count <= lambda.scope { inner.append(.entity(alias: "", table: hopped.target)) }
            switch drivenMatches(predicate, inner) {
            case .about(let matches): return hopped.perValue.map { .about(matches * $0) } ?? .unknown
            case let other: return other
            }
        default:
            return .notDriven
        }
    }

    /// The rows of `member`'s entity whose navigations lead to a row for which `estimate` (the
    /// matches among the last entity's rows, by its column) holds.
    private func memberMatches(_ member: BoundMember, _ scopes: [ScopeAlias],
                               _ estimate: (EntitySetTable, StoredColumn) -> Double?) -> DrivenMatches {
        guard scopes.indices.contains(member.scope), case .entity(_, var table) = scopes[member.scope] else { return .notDriven }
        var factor: Double? = 1
        for navigation in member.navigations {
            guard let hopped = hop(navigation, from: table) else { return .notDriven }
            factor = factor.flatMap { current in hopped.perValue.map { current * $0 } }
            table = hopped.target
        }
        guard let column = table.column(path: member.propertyPath), indexed.leads(table, column) else { return .notDriven }
        guard let factor, let matches = estimate(table, column) else { return .unknown }
        return .about(matches * factor)
    }

    /// The navigation's target table when the source's column leads an index, with the rows of
    /// the source per value of that column (nil without statistics).
    private func hop(_ navigation: BoundNavigation, from table: EntitySetTable) -> (target: EntitySetTable, perValue: Double?)? {
        guard case .columns(let pairs) = navigation.join, let first = pairs.first,
              let column = table.column(named: first.source), indexed.leads(table, column),
              let target = schema.table(forEntitySet: navigation.targetSet) else { return nil }
        return (target, indexed.rowsPerValue(table, column))
    }

    /// The matches of an equality or `in` (of `items` values) on a column with `perValue` rows a
    /// value by `sqlite_stat1`: that, where each value is one row; else counted (`count`), since
    /// an average says nothing of a value most rows share, nor of one none has.
    private func valueMatches(_ perValue: Double?, items: Int, count: () -> Double?) -> Double? {
        if let perValue, perValue <= 1 { return Double(items) }
        return count() ?? perValue.map { $0 * Double(items) }
    }

    /// `member`'s property on its last entity, as that entity's own (scope 0 of a count).
    private static func ownMember(_ member: BoundMember, _ expression: BoundExpression) -> BoundExpression {
        BoundExpression(.member(BoundMember(scope: 0, navigations: [], propertyPath: member.propertyPath)),
                        type: expression.type, range: expression.range)
    }

    /// The rows of `table` for which `test` (on `table`'s own properties, scope 0) holds, counted
    /// through the index on its column up to just past the page's threshold (`count(*)` over
    /// `LIMIT`, the request's values bound): a bounded read, made when the read is translated,
    /// whose answer the kept plan keeps. Nil without a connection to count on or statistics to
    /// bound the count.
    private func countedMatches(_ test: BoundExpression, table: EntitySetTable, _ scopes: [ScopeAlias]) -> Double? {
        guard let probe, let threshold = pageThreshold(scopes) else { return nil }
        var counter = SQLTranslator(schema: schema, now: now)
        guard let condition = try? counter.sql(test, [.entity(alias: "p0", table: table)], .condition) else { return nil }
        let limit = counter.parameters.add(SQLValue.integer(Int64(min(threshold, 1e7)) + 1))
        let sql = "SELECT count(*) FROM (SELECT 1 FROM \(table.quotedName) AS p0 WHERE \(condition) LIMIT \(limit))"
        guard let counted = try? probe.scalarInt(sql, counter.parameters.values) else { return nil }
        return Double(counted)
    }
}
