import Testing
@_spi(Tool) @testable import OfflineOData

/// A read answered by one statement runs without a transaction of its own (its statement is its
/// snapshot); a read of several statements keeps one read transaction around them, so its count
/// and its entities, or its entities and their expansions, see the same state of the store.
@Suite struct OneStatementReadTests {
    @Test(arguments: ["Agencies", "Agencies(1)", "Agencies(1)/Name", "Agencies(1)/Name/$value", "Agencies/$count",
                      "Agencies?$filter=City eq 'Rome'&$top=2&$select=Name"])
    func aReadOfOneStatementNeedsNoTransaction(url: String) throws {
        let store = try ReadTestStore.sample()
        #expect(LocalReader.isOneStatement(try store.reader.bind(url: url)))
    }

    @Test(arguments: ["Agencies?$count=true", "Agencies?$expand=Bookings", "Agencies(1)?$expand=Bookings($select=Customer)",
                      "Bookings(AgencyID=1,Number=1)/Items?$count=true"])
    func aReadOfSeveralStatementsKeepsItsTransaction(url: String) throws {
        let store = try ReadTestStore.sample()
        #expect(!LocalReader.isOneStatement(try store.reader.bind(url: url)))
    }
}
