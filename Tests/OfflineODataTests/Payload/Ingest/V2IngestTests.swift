import Testing
@_spi(Tool) @testable import OfflineOData

/// V2 verbose JSON pages from Apache Olingo V2's RefScenario, into a store from `refScenario.edmx`.
@Suite(.needsFixtures) struct V2IngestTests {
    private func store() throws -> IngestTestStore {
        try IngestTestStore(fixture: "apache-olingo-odata2/refScenario.edmx", dialect: .v2)
    }

    @Test(arguments: [("JsonTeams.json", nil), ("JsonTeamsWithCount.json", 3), ("JsonTeamsWithoutD.json", nil),
                      ("JsonTeamsWithCountWithoutD.json", 3)] as [(String, Int?)])
    func teamFeedsWithAndWithoutD(_ fixture: String, _ count: Int?) throws {
        let store = try store()
        let summary = try store.loadFixture("apache-olingo-odata2/" + fixture, url: "Teams")
        #expect(summary.count == count)
        #expect(summary.entities == (try store.count("Teams")))
        #expect(try store.count("Teams") >= 2)
        #expect(try store.text("Teams", "isScrumTeam", where: "Id", is: .text("2")) == "1")
        #expect(try store.memberships("R", "Teams") == (try store.count("Teams")))
    }

    @Test(arguments: ["JsonBuilding.json", "JsonBuildingWithoutD.json"])
    func singleEntityWithDeferredNavigation(_ fixture: String) throws {
        let store = try store()
        let summary = try store.loadFixture("apache-olingo-odata2/" + fixture, url: "Buildings('1')?$expand=nb_Rooms")
        #expect(summary.entities == 1)
        #expect(try store.text("Buildings", "Name", where: "Id", is: .text("1")) == "Building 1")
        // `__deferred` is no expansion: no links are known, none are written or removed.
        #expect(try store.links("Buildings", "nb_Rooms") == 0)
    }

    @Test func inlineRoomsWithNestedNextLinkAndCount() throws {
        let store = try store()
        let summary = try store.loadFixture("apache-olingo-odata2/JsonBuildingWithInlineRoomsAndNextLinkAndCount.json",
                                            url: "Buildings('1')?$expand=nb_Rooms")
        // The nested `__next` and `__count` belong to the expanded list, not to the page.
        #expect(summary.nextLink == nil && summary.count == nil)
        #expect(summary.entities == 2)
        #expect(try store.count("Rooms") == 1)
        #expect(try store.text("Rooms", "_ood_etag", where: "Id", is: .text("1")) == "W/\"1\"")
        #expect(try store.memberships("R", "Rooms") == 1)
        // RefScenario's associations have no referential constraints: the relation is a link.
        #expect(try store.links("Buildings", "nb_Rooms") == 1)
    }

    @Test func twoLevelsOfExpansionWithComplexValuesAndDates() throws {
        let store = try store()
        try store.loadFixture("apache-olingo-odata2/JsonRoom_InlineEmployeesToTeam.json", url: "Rooms('1')?$expand=nr_Employees/ne_Team")
        #expect(try store.count("Rooms") == 1)
        #expect(try store.count("Employees") == 1)
        #expect(try store.count("Teams") == 1)
        #expect(try store.memberships("R", "Teams") == 1)
        #expect(try store.text("Employees", "Location/City/CityName", where: "EmployeeId", is: .text("1")) == "Heidelberg")
        #expect(try store.text("Employees", "Location/Country", where: "EmployeeId", is: .text("1")) == "Germany")
        #expect(try store.text("Employees", "EntryDate", where: "EmployeeId", is: .text("1"))?.hasPrefix("1999-01-01T00:00:00") == true)
        #expect(try store.links("Rooms", "nr_Employees") == 1)
        #expect(try store.links("Employees", "ne_Team") == 1)
    }

    @Test func feedOfRoomsWithInlineEmployees() throws {
        let store = try store()
        try store.loadFixture("apache-olingo-odata2/JsonRooms_InlineEmployees_InlineBuilding.json", url: "Rooms?$expand=nr_Employees")
        #expect(try store.count("Rooms") == 3)
        #expect(try store.count("Employees") == 3)
        #expect(try store.links("Rooms", "nr_Employees") == 3)
    }

    @Test func deletedEntriesInTheV2Delta() throws {
        let store = try store()
        let rooms = (1...4).map { #"{"__metadata":{"uri":"Rooms('\#($0)')"},"Id":"\#($0)","Name":"Old \#($0)"}"# }
        try store.load([#"{"d":{"results":["# + rooms.joined(separator: ",") + "]}}"], url: "Rooms")
        let summary = try store.loadFixture("apache-olingo-odata2/JsonWithDeletedEntries.json", url: "Rooms")
        #expect(summary.deltaLink == "http://localhost:8080/ReferenceScenario.svc/Rooms?!deltatoken=4711")
        #expect(summary.removed == 2)
        #expect(try store.count("Rooms") == 2)
        #expect(try store.text("Rooms", "Name", where: "Id", is: .text("1")) == "Room 1")
        #expect(try store.text("Rooms", "Name", where: "Id", is: .text("2")) == "Old 2")
        // mock-sap's form: `__metadata.deleted`.
        try store.load([#"{"d":{"results":[{"__metadata":{"uri":"http://h/sap/S/Rooms('2')","deleted":true}}],"__delta":"Rooms?!deltatoken='D1'"}}"#], url: "Rooms")
        #expect(try store.count("Rooms") == 1)
        #expect(try store.memberships("R", "Rooms") == 1)
    }
}
