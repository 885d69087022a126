import Testing
@_spi(Tool) @testable import OfflineOData

/// An in-memory store with the tables of a model, for ingest tests.
final class IngestTestStore {
    let model: MetadataModel
    let schema: StoreSchema
    let db: SQLiteConnection
    let dialect: Dialect

    init(metadata bytes: [UInt8], dialect: Dialect) throws {
        model = try MetadataReader.read(bytes)
        schema = try StoreSchema(model: model)
        self.dialect = dialect
        db = try SQLiteConnection(path: ":memory:", create: true)
        for migration in StoreFormat.migrations { try db.execute(migration) }
        for statement in schema.createStatements { try db.execute(statement) }
    }

    convenience init(fixture: String, dialect: Dialect) throws {
        try self.init(metadata: try #require(Fixtures.bytes(fixture)), dialect: dialect)
    }

    convenience init(metadata text: String, dialect: Dialect) throws {
        try self.init(metadata: Array(text.utf8), dialect: dialect)
    }

    /// Ingests `pages` as one download of the defining request `name` = `url`.
    @discardableResult
    func load(_ pages: [String], name: String = "R", url: String, fullRefresh: Bool = false) throws -> [PageSummary] {
        try ingest(pages.map { Array($0.utf8) }, name: name, url: url, fullRefresh: fullRefresh)
    }

    @discardableResult
    func loadFixture(_ fixture: String, name: String = "R", url: String, fullRefresh: Bool = false) throws -> PageSummary {
        let bytes = try #require(Fixtures.bytes(fixture))
        return try ingest([bytes], name: name, url: url, fullRefresh: fullRefresh)[0]
    }

    /// The pages in one transaction, as `StoreFile.ingest` loads them on a store file.
    private func ingest(_ pages: [[UInt8]], name: String, url: String, fullRefresh: Bool) throws(ODataError) -> [PageSummary] {
        try IngestSession.run(definingRequest: DefiningRequest(name: name, url: url), model: model, schema: schema,
                              dialect: dialect, db: db, fullRefresh: fullRefresh) { session throws(ODataError) in
            var summaries: [PageSummary] = []
            for page in pages { summaries.append(try session.ingest(page: page)) }
            return summaries
        }
    }

    func count(_ entitySet: String) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM \(quoteIdentifier("es/" + entitySet))") ?? -1)
    }

    /// The text of `column` (CAST to TEXT) of the entity whose `keyColumn` is `key`.
    func text(_ entitySet: String, _ column: String, where keyColumn: String, is key: SQLValue) throws -> String? {
        try db.scalarText("SELECT CAST(\(quoteIdentifier(column)) AS TEXT) FROM \(quoteIdentifier("es/" + entitySet)) WHERE \(quoteIdentifier(keyColumn)) = ?1", [key])
    }

    func memberships(_ request: String, _ entitySet: String) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM ood_membership WHERE defining_request = ?1 AND entity_set = ?2",
                             [.text(request), .text(entitySet)]) ?? -1)
    }

    func links(_ sourceSet: String, _ navigation: String) throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM ood_link WHERE source_set = ?1 AND navigation = ?2",
                             [.text(sourceSet), .text(navigation)]) ?? -1)
    }
}
