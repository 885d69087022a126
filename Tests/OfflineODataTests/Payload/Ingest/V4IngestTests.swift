import Testing
@_spi(Tool) @testable import OfflineOData

/// V4 pages from Apache Olingo's fixtures, each into a store built from its own `$metadata`.
@Suite(.needsFixtures) struct V4IngestTests {
    @Test func trippinPeopleWithCollectionsAndEnums() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/trippin/trippin.xml", dialect: .v4)
        let summary = try store.loadFixture("apache-olingo-odata4/trippin/people.json", url: "People")
        #expect(summary.entities == 20)
        #expect(summary.nextLink == nil && summary.count == nil)
        #expect(try store.count("People") == 20)
        #expect(try store.memberships("R", "People") == 20)
        #expect(try store.text("People", "FirstName", where: "UserName", is: .text("russellwhyte")) == "Russell")
        #expect(try store.text("People", "Emails", where: "UserName", is: .text("russellwhyte")) == #"["Russell@example.com","Russell@contoso.com"]"#)
        #expect(try store.text("People", "Concurrency", where: "UserName", is: .text("russellwhyte")) == "635585295719432047")
        #expect(try store.text("People", "Gender", where: "UserName", is: .text("russellwhyte")) == "0")
    }

    @Test func trippinAirportsFlattenComplexValues() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/trippin/trippin.xml", dialect: .v4)
        try store.loadFixture("apache-olingo-odata4/trippin/airports.json", url: "Airports")
        #expect(try store.count("Airports") == 15)
        #expect(try store.text("Airports", "Location/City/Name", where: "IcaoCode", is: .text("KSFO")) == "San Francisco")
        #expect(try store.text("Airports", "Location/Address", where: "IcaoCode", is: .text("KSFO"))?.hasPrefix("South McDonnell Road") == true)
        let loc = try #require(try store.text("Airports", "Location/Loc", where: "IcaoCode", is: .text("KSFO")))
        #expect(loc.contains("\"Point\""))
    }

    @Test func trippinAirlinesKeepControlCharactersAndSkipMediaAnnotations() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/trippin/trippin.xml", dialect: .v4)
        try store.loadFixture("apache-olingo-odata4/trippin/airlines.json", url: "Airlines")
        #expect(try store.count("Airlines") == 15)
        #expect(try store.text("Airlines", "Name", where: "AirlineCode", is: .text("FM")) == "Shanghai \u{0}Airline\u{1}")
    }

    @Test func derivedTypesAndTheV3StyleNextLink() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/odatawcfservice/metadata.xml", dialect: .v4)
        let first = try store.loadFixture("apache-olingo-odata4/odatawcfservice/People.feed.full.json", url: "People")
        #expect(first.entities == 5)
        #expect(first.nextLink == "People?$skiptoken=5")
        let second = try store.loadFixture("apache-olingo-odata4/odatawcfservice/People.skiptoken5.full.json", url: "People")
        #expect(second.nextLink == nil)
        #expect(try store.count("People") == 6)
        #expect(try store.text("People", "_ood_type", where: "PersonID", is: .integer(1)) == "Microsoft.Test.OData.Services.ODataWCFService.Customer")
        // The set's own type is not recorded.
        let plain = try store.db.scalarInt("SELECT count(*) FROM \"es/People\" WHERE \"_ood_type\" IS NULL")
        #expect(plain == 2)
        #expect(try store.text("People", "HomeAddress/City", where: "PersonID", is: .integer(1)) == "London")
    }

    @Test func customersWithCountAndNulls() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/odatawcfservice/metadata.xml", dialect: .v4)
        let summary = try store.loadFixture("apache-olingo-odata4/client-core/Customers.json", url: "Customers")
        #expect(summary.count == 2)
        #expect(try store.count("Customers") == 2)
        #expect(try store.text("Customers", "MiddleName", where: "PersonID", is: .integer(1)) == nil)
        #expect(try store.text("Customers", "Birthday", where: "PersonID", is: .integer(1)) != nil)
    }

    @Test func aSingleEntityResponse() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/odatawcfservice/metadata.xml", dialect: .v4)
        let summary = try store.loadFixture("apache-olingo-odata4/client-core/Accounts_101_expand_MyPaymentInstruments.json", url: "Accounts(101)")
        // The contained payment instruments were not asked for (and have no entity set): skipped.
        #expect(summary.entities == 1)
        #expect(try store.count("Accounts") == 1)
        #expect(try store.text("Accounts", "AccountInfo/FirstName", where: "AccountID", is: .integer(101)) == "Alex")
    }

    @Test func expandingContainedEntitiesIsRefused() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/odatawcfservice/metadata.xml", dialect: .v4)
        #expect { try store.load([], url: "Accounts(101)?$expand=MyPaymentInstruments") } throws: {
            ($0 as? ODataError)?.code == .unsupported
        }
    }

    @Test func olingoDeltaUpdatesAddsAndRemoves() throws {
        let store = try IngestTestStore(fixture: "apache-olingo-odata4/client-core/northwind-metadata.xml", dialect: .v4)
        let url = "Customers?$expand=Orders"
        try store.load([#"{"value":[{"CustomerID":"ANTON","ContactName":"Antonio"},{"CustomerID":"BOTTM","ContactName":"Elizabeth","City":"Tsawassen"}]}"#], url: url)
        let summary = try store.loadFixture("apache-olingo-odata4/client-core/delta.json", url: url)
        #expect(summary.deltaLink == "Customers?$expand=Orders&$deltatoken=8015")
        #expect(summary.count == 5)
        #expect(summary.removed == 1)
        #expect(try store.count("Customers") == 1)
        #expect(try store.text("Customers", "ContactName", where: "CustomerID", is: .text("BOTTM")) == "Susan Halvenstern")
        // Only ContactName came: the city stays.
        #expect(try store.text("Customers", "City", where: "CustomerID", is: .text("BOTTM")) == "Tsawassen")
        // The changed order, identified by its id alone, is in its own set and in the request.
        #expect(try store.count("Orders") == 1)
        #expect(try store.memberships("R", "Orders") == 1)
    }
}
