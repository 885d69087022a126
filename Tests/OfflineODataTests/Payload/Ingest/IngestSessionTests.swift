import Testing
@_spi(Tool) @testable import OfflineOData

/// The session's transaction handling and paging metadata.
@Suite struct IngestSessionTests {
    private func store() throws -> IngestTestStore {
        try IngestTestStore(metadata: IngestBehaviourTests.metadata, dialect: .v4)
    }

    private func session(_ store: IngestTestStore, url: String = "Agencies") throws -> IngestSession {
        try IngestSession(definingRequest: DefiningRequest(name: "R", url: url), model: store.model, schema: store.schema,
                          dialect: .v4, db: store.db)
    }

    @Test func explicitBeginIngestRollback() throws {
        let store = try store()
        let session = try session(store)
        #expect { try session.ingest(page: Array(#"{"value":[]}"#.utf8)) } throws: { ($0 as? ODataError)?.code == .misuse }
        try session.begin()
        _ = try session.ingest(page: Array(#"{"value":[{"id":"1"}]}"#.utf8))
        #expect(try store.count("Agencies") == 1)
        session.rollback()
        #expect(try store.count("Agencies") == 0)
        #expect(try store.memberships("R", "Agencies") == 0)
    }

    @Test func aFailedPageRefusesCommit() throws {
        let store = try store()
        let session = try session(store)
        try session.begin()
        #expect(throws: ODataError.self) { try session.ingest(page: Array(#"{"value":[{"id":"1","rating":true}]}"#.utf8)) }
        #expect { try session.commit() } throws: { ($0 as? ODataError)?.code == .misuse }
        session.rollback()
    }

    @Test func pagingMetadataOnEveryPage() throws {
        let store = try store()
        // odatapy puts the delta link on page 1, next to the next link.
        let pages = [
            #"{"@odata.count":3,"value":[{"id":"1"},{"id":"2"}],"@odata.nextLink":"Agencies?$skiptoken=2","@odata.deltaLink":"Agencies?$deltatoken=7"}"#,
            #"{"value":[{"id":"3"}]}"#,
        ]
        let summaries = try store.load(pages, url: "Agencies", fullRefresh: true)
        #expect(summaries[0] == PageSummary(entities: 2, nextLink: "Agencies?$skiptoken=2", deltaLink: "Agencies?$deltatoken=7", count: 3))
        #expect(summaries[1] == PageSummary(entities: 1))
        #expect(try store.count("Agencies") == 3)
    }

    @Test func toOneExpansionsAndNestedLevelsInV4() throws {
        let store = try store()
        let page = #"{"value":[{"bookid":1,"agencyid":"A","agency":{"id":"A","name":"Alpha","tags":[{"tag":"x"}]}},{"bookid":2,"agency":null}]}"#
        let summary = try store.load([page], url: "Bookings?$expand=agency($expand=tags)")
        #expect(summary[0].entities == 4)
        #expect(try store.text("Agencies", "name", where: "id", is: .text("A")) == "Alpha")
        #expect(try store.memberships("R", "Agencies") == 1)
        #expect(try store.memberships("R", "Tags") == 1)
        #expect(try store.links("Agencies", "tags") == 1)
    }

    @Test func mockSapDeletionWithACompositeDateTimeKey() throws {
        let metadata = """
            <edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0">
              <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
                <Schema xmlns="http://schemas.microsoft.com/ado/2008/09/edm" Namespace="S">
                  <EntityType Name="Flight">
                    <Key><PropertyRef Name="carrid"/><PropertyRef Name="fldate"/></Key>
                    <Property Name="carrid" Type="Edm.String" Nullable="false"/>
                    <Property Name="fldate" Type="Edm.DateTime" Nullable="false"/>
                    <Property Name="price" Type="Edm.Decimal" Precision="15" Scale="2"/>
                  </EntityType>
                  <EntityContainer Name="E" m:IsDefaultEntityContainer="true">
                    <EntitySet Name="FlightCollection" EntityType="S.Flight"/>
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """
        let store = try IngestTestStore(metadata: metadata, dialect: .v2)
        try store.load([#"{"d":{"results":[{"carrid":"AA","fldate":"\/Date(1453248000000)\/","price":"422.94"},{"carrid":"AA","fldate":"\/Date(1453334400000)\/","price":"1.00"}]}}"#],
                       url: "FlightCollection")
        #expect(try store.text("FlightCollection", "price", where: "carrid", is: .text("AA")) != nil)
        let delta = #"{"d":{"results":[{"__metadata":{"uri":"http://h/sap/opu/odata/sap/S/FlightCollection(carrid='AA',fldate=datetime'/Date(1453248000000)/')","deleted":true}}],"__delta":"FlightCollection?!deltatoken='D2'"}}"#
        let summary = try store.load([delta], url: "FlightCollection")
        #expect(summary[0].removed == 1)
        #expect(summary[0].deltaLink == "FlightCollection?!deltatoken='D2'")
        #expect(try store.count("FlightCollection") == 1)
    }
}
