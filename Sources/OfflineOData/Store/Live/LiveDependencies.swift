/// The tables a local read depends on: a commit that changed none of them cannot change its answer.
///
/// Computed once per watched read from the engine's own translation, never from the URL's or the
/// SQL's text: every statement the read may run (``ReadTranslation/allStatements(_:schema:)``:
/// main, count, each `$expand` level and its count) is compiled on a read connection with an
/// authorizer that records each table SQLite reads a column of. So the entity set's table, the
/// tables its navigation paths, `any`/`all` lambdas and `$expand` join, `ood_link` where links
/// are kept, and the local-state columns (`_ood_change`, `_ood_error`, which live in the set's
/// table) are all in, as SQLite itself resolved them.
package struct LiveDependencies: Sendable, Equatable {
    /// The tables read, by their names in the store file.
    package var tables: Set<String>
    /// Whether a table read has no row events for the change tracker (a `WITHOUT ROWID` table):
    /// then every commit re-runs the read.
    package var dependsOnEveryCommit: Bool
}

extension LocalStore {
    /// What the read `bound` depends on (see ``LiveDependencies``).
    func liveDependencies(of bound: BoundRequest) throws(ODataError) -> LiveDependencies {
        let statements = try ReadTranslation.allStatements(LocalReader.readable(bound), schema: schema)
        return try file.withReadConnection(snapshot: false) { db, _ throws(ODataError) -> LiveDependencies in
            var tables: Set<String> = []
            for statement in statements { tables.formUnion(try db.tablesRead(by: statement.sql)) }
            var everyCommit = false
            for table in tables where try Self.hasNoRowEvents(table, on: db) { everyCommit = true }
            return LiveDependencies(tables: tables, dependsOnEveryCommit: everyCommit)
        }
    }

    /// Whether `table` is a `WITHOUT ROWID` table, whose changes SQLite's update hook does not report.
    private static func hasNoRowEvents(_ table: String, on db: SQLiteConnection) throws(ODataError) -> Bool {
        try db.scalarInt("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1", [.text(table)]) == 1
    }
}
