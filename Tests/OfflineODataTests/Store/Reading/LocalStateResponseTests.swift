import Testing
@_spi(Tool) @testable import OfflineOData

/// An entity's pending state is visible in responses (SAP's offline vocabulary, only when true)
/// and queryable in `$filter`, in both dialects and in expanded entities.
@Suite struct LocalStateResponseTests {
    static let isLocal = "@com.sap.vocabularies.Offline.v1.isLocal"
    static let hasPendingChanges = "@com.sap.vocabularies.Offline.v1.hasPendingChanges"
    static let inErrorState = "@com.sap.vocabularies.Offline.v1.inErrorState"

    /// The sample store, with agency 2 changed offline and refused by the service.
    static func store(_ dialect: Dialect = .v4) throws -> ReadTestStore {
        let store = try ReadTestStore.sample(dialect: dialect)
        try store.db.execute(#"UPDATE "es/Agencies" SET "_ood_change" = 'updated', "_ood_error" = 1 WHERE "ID" = 2"#)
        try store.db.execute(#"UPDATE "es/Bookings" SET "_ood_change" = 'updated' WHERE "AgencyID" = 1 AND "Number" = 2"#)
        return store
    }

    func annotations(_ entity: JSONValue?) -> [String] {
        [Self.isLocal, Self.hasPendingChanges, Self.inErrorState].filter { entity?[$0]?.boolValue == true }
    }

    @Test func v4EntitiesCarryTheirPendingStateAndSyncedOnesNothing() throws {
        let store = try Self.store()
        #expect(annotations(try store.read("Agencies(8)")) == [Self.isLocal, Self.hasPendingChanges])
        #expect(annotations(try store.read("Agencies(2)")) == [Self.hasPendingChanges, Self.inErrorState])
        let synced = try store.read("Agencies(1)")
        #expect(annotations(synced).isEmpty)
        guard case .object(let members) = synced else { Issue.record("not an object: \(synced)"); return }
        #expect(!members.contains { $0.key.hasPrefix("@com.sap") })
        // In a collection, the annotations come before the properties, as V4 asks of annotations.
        let entity = try store.read("Agencies?$filter=ID eq 8")["value"]?[0]
        guard case .object(let local)? = entity else { Issue.record("no entity 8"); return }
        let annotation = try #require(local.firstIndex { $0.key == Self.isLocal })
        let property = try #require(local.firstIndex { $0.key == "Name" })
        #expect(annotation < property)
    }

    @Test func expandedEntitiesCarryTheirsToo() throws {
        let store = try Self.store()
        let bookings = try store.read("Agencies(1)?$expand=Bookings")["Bookings"]?.arrayValue ?? []
        #expect(bookings.count == 2)
        #expect(bookings.map(annotations) == [[], [Self.hasPendingChanges]])
    }

    @Test func v2EntitiesCarryThemBesideTheirMetadata() throws {
        let store = try Self.store(.v2)
        let local = try store.read("Agencies(8)")["d"]
        #expect(annotations(local) == [Self.isLocal, Self.hasPendingChanges])
        #expect(local?["__metadata"]?["type"]?.stringValue == "Test.SpecialAgency")
        #expect(annotations(try store.read("Agencies(1)")["d"]).isEmpty)
    }

    @Test func theErrorStateIsAFilterFunction() throws {
        let store = try Self.store()
        #expect(try store.ids("Agencies?$filter=sap.inerrorstate()") == [2])
        #expect(try store.ids("Agencies?$filter=sap.hasPendingChanges() and not sap.inerrorstate()") == [8])
        #expect(try store.ids("Agencies?$filter=not sap.inerrorstate() and Rating ge 4") == [1, 4])
        let error = store.error("Agencies?$filter=sap.inerrorstate(1)")
        #expect(error?.message.contains("takes no arguments") == true)
    }
}
