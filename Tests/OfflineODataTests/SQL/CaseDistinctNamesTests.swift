import Testing
@_spi(Tool) @testable import OfflineOData

/// SQLite compares table names without case; OData does not. Entity sets whose names differ only
/// in case keep their entities apart.
@Suite struct CaseDistinctNamesTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Case" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Item"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.String" Nullable="false"/><Property Name="name" Type="Edm.String"/>
              </EntityType>
              <EntityContainer Name="Container">
                <EntitySet Name="Orders" EntityType="Case.Item"/>
                <EntitySet Name="orders" EntityType="Case.Item"/>
                <EntitySet Name="ORDERS" EntityType="Case.Item"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func setsDifferingOnlyInCaseHaveTablesOfTheirOwn() throws {
        let schema = try StoreSchema(model: MetadataReader.read(Self.metadata))
        #expect(schema.tables.map(\.name) == ["es/Orders", "es/orders~2", "es/ORDERS~3"])

        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("case.store"), metadata: Self.metadata)
        defer { store.close() }
        _ = try store.write(method: "POST", url: "Orders", body: Array(#"{"id":"1","name":"upper"}"#.utf8))
        _ = try store.write(method: "POST", url: "orders", body: Array(#"{"id":"1","name":"lower"}"#.utf8))
        let upper = String(decoding: try store.execute(method: "GET", url: "Orders").body, as: UTF8.self)
        let lower = String(decoding: try store.execute(method: "GET", url: "orders").body, as: UTF8.self)
        let shouting = String(decoding: try store.execute(method: "GET", url: "ORDERS").body, as: UTF8.self)
        #expect(upper.contains("\"upper\"") && !upper.contains("\"lower\""))
        #expect(lower.contains("\"lower\"") && !lower.contains("\"upper\""))
        #expect(!shouting.contains("\"upper\"") && !shouting.contains("\"lower\""))
    }
}
