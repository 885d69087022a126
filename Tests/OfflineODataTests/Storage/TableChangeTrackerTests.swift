import Testing
@_spi(Tool) @testable import OfflineOData

/// The write connection's change tracker (live queries): what each commit changed, published after
/// it; a `DELETE` without `WHERE` seen row by row; `DROP` left working; a rollback publishes nothing.
@Suite struct TableChangeTrackerTests {
    final class Published: @unchecked Sendable {
        let sets = Protected<[Set<String>]>([])
        func record(_ tables: Set<String>) { sets.withLock { $0.append(tables) } }
        var all: [Set<String>] { sets.withLock { $0 } }
    }

    func connection(in folder: TemporaryFolder) throws -> (SQLiteConnection, Published) {
        let db = try SQLiteConnection(path: folder.file("t.db"), create: true)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE a (x); CREATE TABLE b (y); CREATE INDEX a_x ON a (x)")
        db.trackTableChanges()
        let published = Published()
        db.changeTracker?.setListener { published.record($0) }
        return (db, published)
    }

    @Test func eachCommitPublishesTheTablesItChangedAfterTheCommit() throws {
        let folder = TemporaryFolder()
        let (db, published) = try connection(in: folder)
        try db.transaction { () throws(ODataError) in
            try db.execute("INSERT INTO a VALUES (1); INSERT INTO a VALUES (2); INSERT INTO b VALUES (3)")
            db.publishCommittedChanges()  // inside the transaction: nothing yet
            #expect(published.all.isEmpty)
        }
        #expect(published.all == [["a", "b"]])
        // A statement that commits on its own is published when the connection says so.
        try db.execute("UPDATE b SET y = 4")
        db.publishCommittedChanges()
        #expect(published.all == [["a", "b"], ["b"]])
    }

    @Test func aRollbackPublishesNothing() throws {
        let folder = TemporaryFolder()
        let (db, published) = try connection(in: folder)
        #expect(throws: ODataError.self) {
            try db.transaction { () throws(ODataError) in
                try db.execute("INSERT INTO a VALUES (1)")
                throw ODataError(.aborted, "on purpose")
            }
        }
        db.publishCommittedChanges()
        #expect(published.all.isEmpty)
    }

    @Test func aDeleteWithoutWhereIsSeenAndDropStillDrops() throws {
        let folder = TemporaryFolder()
        let (db, published) = try connection(in: folder)
        try db.execute("INSERT INTO a VALUES (1); INSERT INTO a VALUES (2)")
        db.publishCommittedChanges()
        try db.execute("DELETE FROM a")
        db.publishCommittedChanges()
        #expect(published.all.last == ["a"])
        #expect(try db.scalarInt("SELECT count(*) FROM a") == 0)
        // The authorizer that keeps deletes row by row leaves DROP INDEX and DROP TABLE working.
        try db.execute("DROP INDEX a_x")
        try db.execute("DROP TABLE b")
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name IN ('b', 'a_x')") == 0)
    }

    @Test func theTablesAReadCompilesToAreFound() throws {
        let folder = TemporaryFolder()
        let (db, _) = try connection(in: folder)
        #expect(try db.tablesRead(by: "SELECT x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE y = x)") == ["a", "b"])
        #expect(try db.tablesRead(by: "SELECT count(*) FROM a") == ["a"])
    }
}
