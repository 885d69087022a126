import Testing
@_spi(Tool) @testable import OfflineOData

/// Ingest rules on a small model of our own: partial properties, pending local changes, full
/// refresh, delta removals, failures and rollback.
@Suite struct IngestBehaviourTests {
    static let metadata = """
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="T">
              <ComplexType Name="Address"><Property Name="Street" Type="Edm.String"/><Property Name="City" Type="Edm.String"/></ComplexType>
              <EntityType Name="Agency">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.String" Nullable="false"/>
                <Property Name="name" Type="Edm.String"/>
                <Property Name="country" Type="Edm.String"/>
                <Property Name="rating" Type="Edm.Int32"/>
                <Property Name="credit" Type="Edm.Decimal" Scale="2"/>
                <Property Name="address" Type="T.Address"/>
                <NavigationProperty Name="bookings" Type="Collection(T.Booking)" Partner="agency"/>
                <NavigationProperty Name="tags" Type="Collection(T.Tag)"/>
              </EntityType>
              <EntityType Name="PremiumAgency" BaseType="T.Agency"><Property Name="level" Type="Edm.Int32"/></EntityType>
              <EntityType Name="Booking">
                <Key><PropertyRef Name="bookid"/></Key>
                <Property Name="bookid" Type="Edm.Int64" Nullable="false"/>
                <Property Name="agencyid" Type="Edm.String"/>
                <NavigationProperty Name="agency" Type="T.Agency" Partner="bookings">
                  <ReferentialConstraint Property="agencyid" ReferencedProperty="id"/>
                </NavigationProperty>
              </EntityType>
              <EntityType Name="Tag"><Key><PropertyRef Name="tag"/></Key><Property Name="tag" Type="Edm.String" Nullable="false"/></EntityType>
              <Function Name="TopAgencies"><ReturnType Type="Collection(T.Agency)"/></Function>
              <EntityContainer Name="C">
                <EntitySet Name="Agencies" EntityType="T.Agency">
                  <NavigationPropertyBinding Path="bookings" Target="Bookings"/>
                  <NavigationPropertyBinding Path="tags" Target="Tags"/>
                </EntitySet>
                <EntitySet Name="Bookings" EntityType="T.Booking"><NavigationPropertyBinding Path="agency" Target="Agencies"/></EntitySet>
                <EntitySet Name="Tags" EntityType="T.Tag"/>
                <FunctionImport Name="TopAgencies" Function="T.TopAgencies" EntitySet="Agencies"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    private func store() throws -> IngestTestStore { try IngestTestStore(metadata: Self.metadata, dialect: .v4) }

    private func agencies(_ ids: [Int], country: String = "US") -> String {
        let rows = ids.map { #"{"@odata.etag":"W/\"1\"","id":"\#($0)","name":"Agency \#($0)","country":"\#(country)","rating":\#($0),"credit":12.5,"address":{"Street":"Main \#($0)","City":"Rome"}}"# }
        return #"{"@odata.context":"$metadata#Agencies","value":["# + rows.joined(separator: ",") + "]}"
    }

    @Test func upsertWritesValuesEtagAndDecimals() throws {
        let store = try store()
        try store.load([agencies([1, 2])], url: "Agencies")
        #expect(try store.count("Agencies") == 2)
        #expect(try store.text("Agencies", "credit", where: "id", is: .text("1")) == "12.5")
        #expect(try store.text("Agencies", "address/City", where: "id", is: .text("2")) == "Rome")
        #expect(try store.text("Agencies", "_ood_etag", where: "id", is: .text("2")) == "W/\"1\"")
        // Loading again updates in place: same local ids, no duplicates.
        let before = try store.text("Agencies", "_ood_id", where: "id", is: .text("2"))
        try store.load([agencies([1, 2], country: "IT")], url: "Agencies")
        #expect(try store.count("Agencies") == 2)
        #expect(try store.text("Agencies", "country", where: "id", is: .text("2")) == "IT")
        #expect(try store.text("Agencies", "_ood_id", where: "id", is: .text("2")) == before)
    }

    @Test func aFirstDownloadThatSendsAnEntityTwiceKeepsOneRowWithTheLaterValues() throws {
        // The second copy updates the row the first one inserted, in the same download.
        let store = try store()
        let second = #"{"value":[{"id":"2","name":"Again","country":"IT"},{"id":"3","name":"Three"}]}"#
        try store.load([agencies([1, 2]), second], url: "Agencies")
        #expect(try store.count("Agencies") == 3)
        #expect(try store.text("Agencies", "name", where: "id", is: .text("2")) == "Again")
        #expect(try store.text("Agencies", "credit", where: "id", is: .text("2")) == "12.5")
        #expect(try store.text("Agencies", "name", where: "id", is: .text("3")) == "Three")
    }

    @Test func aSelectPageLeavesOtherColumnsAlone() throws {
        let store = try store()
        try store.load([agencies([1])], url: "Agencies")
        try store.load([#"{"value":[{"id":"1","name":"Renamed"}]}"#], url: "Agencies?$select=id,name")
        #expect(try store.text("Agencies", "name", where: "id", is: .text("1")) == "Renamed")
        #expect(try store.text("Agencies", "country", where: "id", is: .text("1")) == "US")
        #expect(try store.text("Agencies", "address/Street", where: "id", is: .text("1")) == "Main 1")
        #expect(try store.text("Agencies", "_ood_etag", where: "id", is: .text("1")) == "W/\"1\"")
        // A null complex value nulls its leaves.
        try store.load([#"{"value":[{"id":"1","address":null}]}"#], url: "Agencies")
        #expect(try store.text("Agencies", "address/Street", where: "id", is: .text("1")) == nil)
    }

    @Test func derivedTypesAreRecorded() throws {
        let store = try store()
        try store.load([##"{"value":[{"@odata.type":"#T.PremiumAgency","id":"9","level":3},{"@type":"T.Agency","id":"8"}]}"##], url: "Agencies")
        #expect(try store.text("Agencies", "_ood_type", where: "id", is: .text("9")) == "T.PremiumAgency")
        #expect(try store.text("Agencies", "level", where: "id", is: .text("9")) == "3")
        #expect(try store.text("Agencies", "_ood_type", where: "id", is: .text("8")) == nil)
    }

    @Test func pendingLocalChangesKeepTheirValuesButTakeTheNewEtag() throws {
        let store = try store()
        try store.load([agencies([1])], url: "Agencies")
        try store.db.execute(#"UPDATE "es/Agencies" SET name = 'Local', "_ood_change" = 'updated' WHERE id = '1'"#)
        try store.load([#"{"value":[{"@odata.etag":"W/\"2\"","id":"1","name":"Server"}]}"#], url: "Agencies")
        #expect(try store.text("Agencies", "name", where: "id", is: .text("1")) == "Local")
        #expect(try store.text("Agencies", "_ood_etag", where: "id", is: .text("1")) == "W/\"2\"")
    }

    @Test func expandedEntitiesLinksAndMemberships() throws {
        let store = try store()
        let page = #"{"value":[{"id":"1","bookings":[{"bookid":10,"agencyid":"1"},{"bookid":"11","agencyid":"1"}],"tags":[{"tag":"a"},{"tag":"b"}]}]}"#
        let summary = try store.load([page], url: "Agencies?$expand=bookings,tags")
        #expect(summary[0].entities == 5)
        #expect(try store.count("Bookings") == 2)
        #expect(try store.memberships("R", "Bookings") == 2)
        #expect(try store.memberships("R", "Tags") == 2)
        // Bookings carry the foreign key: no links. Tags have no constraint: links.
        #expect(try store.links("Agencies", "bookings") == 0)
        #expect(try store.links("Agencies", "tags") == 2)
        // A complete list replaces the links; a partial one (nested next link) only adds.
        try store.load([#"{"value":[{"id":"1","tags":[{"tag":"c"}]}]}"#], url: "Agencies?$expand=tags")
        #expect(try store.links("Agencies", "tags") == 1)
        try store.load([#"{"value":[{"id":"1","tags@odata.nextLink":"more","tags":[{"tag":"d"}]}]}"#], url: "Agencies?$expand=tags")
        #expect(try store.links("Agencies", "tags") == 2)
    }

    @Test func fullRefreshRemovesWhatIsGoneButKeepsSharedAndChangedEntities() throws {
        let store = try store()
        try store.load([agencies([1, 2, 3, 4])], name: "US", url: "Agencies", fullRefresh: true)
        try store.load([agencies([2])], name: "Other", url: "Agencies", fullRefresh: true)
        try store.db.execute(#"UPDATE "es/Agencies" SET "_ood_change" = 'updated' WHERE id = '3'"#)
        try store.load([agencies([1]), agencies([4])], name: "US", url: "Agencies", fullRefresh: true)
        // 2 is held by "Other", 3 has a pending change; both stay but leave "US".
        #expect(try store.count("Agencies") == 4 - 0)
        #expect(try store.memberships("US", "Agencies") == 2)
        try store.db.execute(#"UPDATE "es/Agencies" SET "_ood_change" = NULL WHERE id = '3'"#)
        try store.load([agencies([1])], name: "US", url: "Agencies", fullRefresh: true)
        #expect(try store.count("Agencies") == 3)
        #expect(try store.text("Agencies", "id", where: "id", is: .text("4")) == nil)
        #expect(try store.text("Agencies", "id", where: "id", is: .text("2")) == "2")
    }

    /// An empty table takes a download's rows in batches (``FreshRows``): parts of 32, 8, 4 and 1
    /// rows, and a key seen twice (in one batch, or in a later page) ends as one row with the
    /// later values, as one upsert per entity would leave it.
    @Test func anEmptyTableTakesBatchesWithTheResultOfOneUpsertPerEntity() throws {
        let store = try store()
        let repeated = #"{"value":[{"id":"50","name":"First"},{"id":"51","name":"Other"},{"id":"50","name":"Second"}]}"#
        try store.load([agencies(Array(1...45)), agencies([7, 46], country: "FR"), repeated], url: "Agencies", fullRefresh: true)
        #expect(try store.count("Agencies") == 48)
        #expect(try store.memberships("R", "Agencies") == 48)
        #expect(try store.text("Agencies", "country", where: "id", is: .text("7")) == "FR")
        #expect(try store.text("Agencies", "country", where: "id", is: .text("45")) == "US")
        #expect(try store.text("Agencies", "name", where: "id", is: .text("50")) == "Second")
        #expect(try store.text("Agencies", "_ood_id", where: "id", is: .text("1")) == "1")
        #expect(try store.text("Agencies", "_ood_id", where: "id", is: .text("45")) == "45")
        // Every local id is one row's: none was given twice.
        #expect(try store.db.scalarInt(#"SELECT count(DISTINCT "_ood_id") FROM "es/Agencies""#) == 48)
        // The table holds rows now: the next download upserts them.
        try store.load([agencies([1, 2], country: "DE")], url: "Agencies", fullRefresh: true)
        #expect(try store.count("Agencies") == 2)
        #expect(try store.text("Agencies", "country", where: "id", is: .text("2")) == "DE")
        #expect(try store.text("Agencies", "_ood_id", where: "id", is: .text("2")) == "2")
    }

    @Test func fullRefreshDeletesTheLinksOfRemovedEntities() throws {
        let store = try store()
        try store.load([#"{"value":[{"id":"1","tags":[{"tag":"a"}]},{"id":"2","tags":[{"tag":"b"}]}]}"#], url: "Agencies?$expand=tags", fullRefresh: true)
        try store.load([#"{"value":[{"id":"1","tags":[{"tag":"a"}]}]}"#], url: "Agencies?$expand=tags", fullRefresh: true)
        #expect(try store.count("Agencies") == 1)
        #expect(try store.count("Tags") == 1)
        #expect(try store.links("Agencies", "tags") == 1)
    }

    @Test func deltaRemovalsInBothV4Forms() throws {
        let store = try store()
        try store.load([agencies([1, 2, 3, 4])], name: "US", url: "Agencies")
        try store.load([agencies([3])], name: "Other", url: "Agencies")
        let delta = """
            {"@odata.context":"$metadata#Agencies/$delta","value":[
              {"@removed":{"reason":"deleted"},"@id":"Agencies('1')"},
              {"@odata.context":"#Agencies/$deletedEntity","id":"http://h/svc/Agencies('2')","reason":"changed"},
              {"@odata.removed":{"reason":"deleted"},"id":"3"},
              {"@odata.context":"#Agencies/$deletedLink","source":"Agencies('4')","relationship":"tags","target":"Tags('x')"},
              {"@removed":{"reason":"deleted"},"@id":"Agencies('99')"},
              {"id":"5","name":"New"}
            ],"@odata.deltaLink":"Agencies?$deltatoken=2"}
            """
        let summary = try store.load([delta], name: "US", url: "Agencies")
        #expect(summary[0].removed == 4)
        #expect(summary[0].entities == 1)
        #expect(summary[0].deltaLink == "Agencies?$deltatoken=2")
        // 1 and 2 are gone; 3 is still held by "Other"; 4 untouched; 5 new.
        #expect(try store.count("Agencies") == 3)
        #expect(try store.memberships("US", "Agencies") == 2)
        #expect(try store.memberships("Other", "Agencies") == 1)
    }

    @Test func aMalformedPageRollsBackTheWholeDownload() throws {
        let store = try store()
        try store.load([agencies([1, 2])], url: "Agencies", fullRefresh: true)
        #expect { try store.load([agencies([3]), #"{"value":[{"id":"4"},{"id":"5",}]}"#], url: "Agencies", fullRefresh: true) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .syntax && error.offset == 31
        }
        #expect(try store.count("Agencies") == 2)
        #expect(try store.memberships("R", "Agencies") == 2)
        #expect(try store.db.scalarInt("SELECT count(*) FROM \"es/Agencies\" WHERE id = '3'") == 0)
    }

    @Test func aValueOfTheWrongTypeNamesSetPropertyAndValue() throws {
        let store = try store()
        #expect { try store.load([#"{"value":[{"id":"1","rating":"high"}]}"#], url: "Agencies") } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .semantic && error.message.contains("Agencies") && error.message.contains("rating")
                && error.message.contains("high")
        }
        #expect(try store.count("Agencies") == 0)
    }

    @Test func anEntityWithoutKeyIsAnError() throws {
        let store = try store()
        #expect { try store.load([#"{"value":[{"name":"No key"}]}"#], url: "Agencies") } throws: {
            ($0 as? ODataError)?.code == .semantic
        }
    }

    @Test func unknownPropertiesAndAnnotationsAreSkipped() throws {
        let store = try store()
        try store.load([##"{"value":[{"id":"1","@odata.editLink":"x","name@odata.type":"#String","name":"A","extra":{"deep":[1,2]},"bookings@odata.navigationLink":"y"}]}"##], url: "Agencies")
        #expect(try store.text("Agencies", "name", where: "id", is: .text("1")) == "A")
    }

    @Test func definingRequestsThatAreNoCollectionsAreRefused() throws {
        let store = try store()
        for url in ["TopAgencies()", "Agencies('1')/name", "Agencies/$count", "Agencies?$expand=bookings/$ref"] {
            #expect(throws: ODataError.self, "\(url)") { try store.load([], url: url) }
        }
        #expect { try store.load([], url: "TopAgencies()") } throws: { ($0 as? ODataError)?.code == .unsupported }
        #expect { try store.load([], url: "Nowhere") } throws: { ($0 as? ODataError)?.code == .semantic }
    }

    @Test func definingRequestTargets() throws {
        let store = try store()
        let target = try DefiningRequestTarget(url: "Bookings(1)/agency?$expand=bookings($expand=agency),tags", model: store.model, dialect: .v4)
        #expect(target.entitySet == "Agencies")
        #expect(target.isSingleEntity)
        #expect(target.root.navigations["bookings"]?.node.entitySet == "Bookings")
        #expect(target.root.navigations["bookings"]?.recordsLinks == false)
        #expect(target.root.navigations["bookings"]?.node.navigations["agency"]?.node.entitySet == "Agencies")
        #expect(target.root.navigations["tags"]?.recordsLinks == true)
        #expect(Set(target.entitySets) == ["Agencies", "Bookings", "Tags"])
        let collection = try DefiningRequestTarget(url: "Agencies('1')/bookings?$filter=bookid gt 2", model: store.model, dialect: .v4)
        #expect(collection.entitySet == "Bookings" && !collection.isSingleEntity)
    }

    @Test func entityIdentifiers() throws {
        let plain = try #require(EntityIdentifier("http://h/svc/Customers('O''Neil')"))
        #expect(plain.entitySet == "Customers")
        #expect(plain.keyValues.map(\.text) == ["O'Neil"])
        let composite = try #require(EntityIdentifier("FlightCollection(carrid='AA',connid='0017',fldate=datetime'/Date(1453248000000)/')"))
        #expect(composite.keyValues.map(\.name) == ["carrid", "connid", "fldate"])
        #expect(composite.keyValues.map(\.text) == ["AA", "0017", "/Date(1453248000000)/"])
        let escaped = try #require(EntityIdentifier("Flights(fldate=datetime'2016-01-20T00%3A00%3A00',id=12L)"))
        #expect(escaped.keyValues.map(\.text) == ["2016-01-20T00:00:00", "12"])
        #expect(EntityIdentifier("Customers")?.entitySet == nil)
    }
}
