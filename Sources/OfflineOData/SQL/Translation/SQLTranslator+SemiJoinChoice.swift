/// When a navigation filter becomes a semi-join, and `all` an anti-join (issue 23).
///
/// SQLite takes the list of an `IN (SELECT ...)` for short (it guesses 25 rows) and reads the
/// matches through it, then sorts them. In a page (`$top`, `$skip`) of a filter most rows pass,
/// that finds and sorts every match (25 ms against 0.5 ms at 20,000 entities), where the
/// correlated form reads in key order and stops at the page's end; but for a filter few rows
/// pass, the correlated form tests every row of the table. SQLite cannot choose between the two
/// (a join, written either way, plans as the semi-join), so the translator does: in a page, a
/// semi-join only where indexes find the matches (``SQLTranslator/semiJoinDrives(_:_:)``), which
/// is an equality, and an equality is mostly selective; a range (`gt`) may pass any share of the
/// rows and keeps the early stop. Where `sqlite_stat1` has figures, the estimated number of
/// matches decides instead (``DrivenMatches``, issue 38): an equality most rows share keeps the
/// early stop, a selective range is found through its index.
enum SemiJoinUse {
    /// A read without `$top` or `$skip`, which returns every match anyway.
    case always
    /// A page: only where indexes find few enough matches, ``IndexedColumns``, ``DrivenMatches``.
    case whenIndexesDrive
}

extension SQLTranslator {
    /// Whether the navigation filter `test` (a comparison, `in` or `any`, in a condition) may be
    /// written as a semi-join under ``semiJoinUse``.
    mutating func semiJoinAllowed(_ test: BoundExpression, _ scopes: [ScopeAlias]) -> Bool {
        switch semiJoinUse {
        case .always:
            return true
        case .whenIndexesDrive:
            readsIndexes = true
            return semiJoinPays(test, scopes)
        }
    }

    /// Whether SQLite can find the rows for which `test` holds through indexes alone: an `eq` or
    /// `in` of request values on a column that leads an index, reached through navigations whose
    /// columns lead an index on each side (the store's key and foreign-key indexes); an `and`
    /// with such an operand; an `any` whose predicate is one.
    func semiJoinDrives(_ test: BoundExpression, _ scopes: [ScopeAlias]) -> Bool {
        switch test.kind {
        case .and:
            return Self.conjuncts(of: test).contains { semiJoinDrives($0, scopes) }
        case .comparison(let op, let lhs, let rhs):
            guard op == .eq else { return false }
            if case .member(let member) = lhs.kind, Self.isRequestValue(rhs) { return memberDrives(member, scopes) }
            if case .member(let member) = rhs.kind, Self.isRequestValue(lhs) { return memberDrives(member, scopes) }
            return false
        case .in(let operand, let items):
            guard case .member(let member) = operand.kind, items.allSatisfy(Self.isRequestValue) else { return false }
            return memberDrives(member, scopes)
        case .lambda(let lambda):
            guard lambda.quantifier == .any, let predicate = lambda.predicate,
                  case .navigation(let scope, let path, let collection, _) = lambda.source, path.isEmpty,
                  scopes.indices.contains(scope), case .entity(_, let start) = scopes[scope],
                  let target = hopDrives(collection, from: start) else { return false }
            var inner = scopes
            while inner.count <= lambda.scope { inner.append(.entity(alias: "", table: target)) }
            return semiJoinDrives(predicate, inner)
        default:
            return false
        }
    }

    /// Whether each navigation of `member` and then its property lead an index.
    private func memberDrives(_ member: BoundMember, _ scopes: [ScopeAlias]) -> Bool {
        guard scopes.indices.contains(member.scope), case .entity(_, var table) = scopes[member.scope] else { return false }
        for navigation in member.navigations {
            guard let next = hopDrives(navigation, from: table) else { return false }
            table = next
        }
        guard let column = table.column(path: member.propertyPath) else { return false }
        return indexed.leads(table, column)
    }

    /// The navigation's target table, when the source's side of the join leads an index (so the
    /// targets found lead to their partners through it); nil for links in `ood_link`, which are
    /// found by their source.
    private func hopDrives(_ navigation: BoundNavigation, from table: EntitySetTable) -> EntitySetTable? {
        guard case .columns(let pairs) = navigation.join, let first = pairs.first,
              let column = table.column(named: first.source), indexed.leads(table, column) else { return nil }
        return schema.table(forEntitySet: navigation.targetSet)
    }

    /// Decides ``antiJoins`` for the read being translated, once, when its first `all` is met.
    mutating func decideAntiJoins() {
        guard let read = antiJoinRead else { return }
        antiJoinRead = nil
        antiJoins = antiJoinsAllowed(read.path, read.options, table: read.table)
    }

    /// Whether `all` may be an anti-join in the read of `path` with `options`: its list of
    /// failing items is made whole, once, however few rows it is tested against, so only where
    /// the read tests the set's rows in full. Not for a key or a navigation path (one entity, a
    /// few related ones), nor beside a condition an index narrows (`ID lt 2000 and
    /// Orders/all(...)`), where the correlated form searches the items of those rows alone.
    mutating func antiJoinsAllowed(_ path: BoundPath, _ options: BoundQueryOptions, table: EntitySetTable) -> Bool {
        if path.rootKey != nil || !path.steps.isEmpty { return false }
        guard let filter = options.filter else { return true }
        antiJoinsReadIndexes = true
        return !narrowedByIndex(filter, table)
    }

    /// Whether a conjunct of `filter` finds its rows through an index: a comparison (not `ne`)
    /// or `in` of the entity's own indexed property with request values, or a navigation filter
    /// a semi-join reads through indexes.
    private func narrowedByIndex(_ filter: BoundExpression, _ table: EntitySetTable) -> Bool {
        Self.conjuncts(of: filter).contains { narrowedByIndex(conjunct: $0, table) }
    }

    private func narrowedByIndex(conjunct filter: BoundExpression, _ table: EntitySetTable) -> Bool {
        switch filter.kind {
        case .comparison(let op, let lhs, let rhs) where op != .ne:
            if case .member(let member) = lhs.kind, Self.isRequestValue(rhs), ownIndexed(member, table) { return true }
            if case .member(let member) = rhs.kind, Self.isRequestValue(lhs), ownIndexed(member, table) { return true }
        case .in(let operand, let items):
            if case .member(let member) = operand.kind, items.allSatisfy(Self.isRequestValue), ownIndexed(member, table) { return true }
        default:
            break
        }
        return semiJoinDrives(filter, [.entity(alias: "", table: table)])
    }

    /// Whether `member` is a property of the read's own entity (scope 0) that leads an index.
    private func ownIndexed(_ member: BoundMember, _ table: EntitySetTable) -> Bool {
        guard member.scope == 0, member.navigations.isEmpty, let column = table.column(path: member.propertyPath) else { return false }
        return indexed.leads(table, column)
    }

    /// The operands of an `and` chain, any shape, without recursion (a filter may join
    /// thousands); a non-`and` expression is its own one operand.
    static func conjuncts(of expression: BoundExpression) -> [BoundExpression] {
        var operands: [BoundExpression] = [], pending = [expression]
        while let next = pending.popLast() {
            if case .and(let lhs, let rhs) = next.kind {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                operands.append(next)
            }
        }
        return operands
    }
}
