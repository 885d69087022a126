import Testing
@_spi(Tool) @testable import OfflineOData

/// Key reads, navigation reads, properties, `$select`, `$expand`, and the V4 and V2 response shapes.
@Suite struct ResponseShapeTests {
    @Test func v4CollectionAndEntity() throws {
        let store = try ReadTestStore.sample()
        let collection = try store.read("Agencies?$filter=ID eq 1 or ID eq 8")
        #expect(collection["@odata.context"] == "http://host/service/$metadata#Agencies")
        #expect(collection["@odata.nextLink"] == nil)
        let first = collection["value"]?[0]
        #expect(first?["@odata.etag"] == "W/\"1\"")
        #expect(first?["Name"] == "Alpha")
        #expect(first?["Big"] == 9_007_199_254_740_993)
        #expect(first?["Revenue"]?.numberValue?.description == "9.5")
        #expect(first?["Founded"] == "2020-01-01T00:00:00Z")
        #expect(first?["Opened"] == "2020-01-01")
        #expect(first?["Color"] == "Red")
        #expect(first?["Active"] == true)
        #expect(first?["Address"] == ["Street": "Via 1", "City": "Rome"])
        #expect(first?["Tags"] == ["a", "b"])
        #expect(first?["Perk"] == nil)
        #expect(first?["Bookings"] == nil)
        let special = collection["value"]?[1]
        #expect(special?["@odata.type"] == "#Test.SpecialAgency")
        #expect(special?["Perk"] == "gym")
        #expect(special?["Rating"] == .null)

        let entity = try store.read("Agencies(2)")
        #expect(entity["@odata.context"] == "http://host/service/$metadata#Agencies/$entity")
        #expect(entity["Name"] == "Beta")
        #expect(entity["Score"] == -2.5)
        #expect(try store.read("Bookings(AgencyID=1,Number=2)")["Customer"] == "y")
        #expect(try store.read("Bookings(Number=2,AgencyID=1)/Agency")["ID"] == 1)
        #expect(try store.values("Agencies(1)/Bookings", "Number") == [1, 2])
        #expect(try store.read("Agencies(1)/Bookings(AgencyID=1,Number=2)")["Amount"]?.numberValue?.description == "20")
        #expect(try store.values("Bookings(AgencyID=1,Number=1)/Items", "Label") == ["one", "two"])
        #expect(try store.values("Agencies(1)/Bookings?$filter=Amount gt 10", "Number") == [2])
    }

    @Test func missingAndDeletedEntitiesAreNotFound() throws {
        let store = try ReadTestStore.sample()
        #expect(store.error("Agencies(99)")?.code == .notFound)
        #expect(store.error("Agencies(7)")?.code == .notFound)
        #expect(store.error("Bookings(AgencyID=1,Number=3)")?.code == .notFound)
        #expect(store.error("Agencies(99)/Name")?.code == .notFound)
        #expect(store.error("Agencies(3)/Bookings(AgencyID=1,Number=1)")?.code == .notFound)
        #expect(try store.values("Agencies(7)/Bookings") == [])
        let unicode = store.error("Agencies?$filter=Name eq 'Zürich' and Nope eq 1")
        #expect(unicode?.code == .semantic && unicode?.offset == 38)
        let operation = store.error("TopAgencies()?$filter=ID eq 1")
        #expect(operation?.code == .unsupported)
        #expect(operation?.message.contains("does not run operations") == true)
    }

    @Test func propertiesAndRawValues() throws {
        let store = try ReadTestStore.sample()
        let name = try store.read("Agencies(1)/Name")
        #expect(name["value"] == "Alpha")
        #expect(name["@odata.context"] == "http://host/service/$metadata#Agencies(1)/Name")
        #expect(try store.read("Agencies(1)/Address") == ["@odata.context": "http://host/service/$metadata#Agencies(1)/Address", "Street": "Via 1", "City": "Rome"])
        #expect(try store.read("Agencies(1)/Address/City")["value"] == "Rome")
        let raw = try store.raw("Agencies(3)/Name/$value")
        #expect(String(decoding: raw.body, as: UTF8.self) == "O'Brien & Co")
        #expect(raw.contentType.hasPrefix("text/plain"))
        #expect(try store.raw("Agencies(3)/City/$value").status == 204)
        #expect(String(decoding: try store.raw("Agencies(1)/Rating/$value").body, as: UTF8.self) == "5")
    }

    @Test func selectKeepsKeysAndNestsComplexPaths() throws {
        let store = try ReadTestStore.sample()
        let entity = try store.read("Agencies(1)?$select=Name,Address/City")
        #expect(entity.objectMembers?.map(\.key) == ["@odata.context", "@odata.etag", "ID", "Name", "Address"])
        #expect(entity["Address"] == ["City": "Rome"])
        #expect(entity["@odata.context"] == "http://host/service/$metadata#Agencies(Name,Address/City)/$entity")
        #expect(try store.read("Agencies(1)?$select=*")["Tags"] == ["a", "b"])
        let expanded = try store.read("Agencies(1)?$select=Name&$expand=Bookings($select=Number)")
        #expect(expanded["Bookings"]?.arrayValue?.count == 2)
        let v2 = try ReadTestStore.sample(dialect: .v2)
        let selected = try v2.read("Agencies(1)?$select=Name,Bookings")["d"]
        #expect(selected?["Bookings"]?["__deferred"] != nil)
        #expect(selected?["Rating"] == nil)
    }

    @Test func expandToOneToManyNestedAndPerParentOptions() throws {
        let store = try ReadTestStore.sample()
        let agencies = try store.read("Agencies?$filter=ID le 3&$expand=Bookings($orderby=Number desc;$top=1;$select=Number)")
        #expect(agencies["value"]?[0]?["Bookings"] == [["AgencyID": 1, "Number": 2]])
        #expect(agencies["value"]?[1]?["Bookings"] == [["AgencyID": 2, "Number": 1]])
        #expect(agencies["value"]?[2]?["Bookings"] == [])
        let bookings = try store.read("Bookings?$expand=Agency($select=Name),Items($orderby=ID desc)")
        #expect(bookings["value"]?[0]?["Agency"] == ["@odata.etag": "W/\"1\"", "ID": 1, "Name": "Alpha"])
        #expect(bookings["value"]?[0]?["Items"]?.arrayValue?.map { $0["ID"] } == ["i2", "i1"])
        #expect(bookings["value"]?[2]?["Items"] == [])
        #expect(bookings["value"]?.arrayValue?.count == 4)
        let nested = try store.read("Agencies(1)?$expand=Bookings($filter=Number eq 1;$expand=Items($select=Label),Agency($select=ID))")
        #expect(nested["Bookings"]?[0]?["Items"]?.arrayValue?.map { $0["Label"] } == ["one", "two"])
        #expect(nested["Bookings"]?[0]?["Agency"]?["ID"] == 1)
        #expect(nested["Bookings"]?.arrayValue?.count == 1)
        let recursive = try store.read("Bookings(AgencyID=1,Number=1)?$expand=Agency($expand=Bookings($expand=Agency))")
        #expect(recursive["Agency"]?["Bookings"]?.arrayValue?.count == 2)
        #expect(recursive["Agency"]?["Bookings"]?[1]?["Agency"]?["Name"] == "Alpha")
        let skipped = try store.read("Agencies(1)?$expand=Bookings($skip=1)")
        #expect(skipped["Bookings"]?.arrayValue?.map { $0["Number"] } == [2])
    }

    /// `$expand=Nav($count=true)`: `Nav@odata.count` before the collection, counting what the nested
    /// `$filter` keeps before `$skip`/`$top` (and not entities deleted offline); 0 for none.
    @Test func expandWithCountAnnotatesEachCollection() throws {
        let store = try ReadTestStore.sample()
        let result = try store.read("Agencies?$filter=ID le 3&$orderby=ID&$select=ID"
                                    + "&$expand=Bookings($count=true;$filter=Amount gt 1;$orderby=Number;$skip=1;$top=1;$select=Number)")
        let agencies = result["value"]?.arrayValue ?? []
        #expect(agencies.map { $0["Bookings@odata.count"] } == [2, 1, 0])
        #expect(agencies.map { $0["Bookings"]?.arrayValue?.map { $0["Number"] } } == [[2], [], []])
        #expect(agencies.first?.objectMembers?.map(\.key) == ["@odata.etag", "ID", "Bookings@odata.count", "Bookings"])
        let uncounted = try store.read("Agencies(1)?$expand=Bookings")
        #expect(uncounted["Bookings@odata.count"] == nil)
        #expect(try store.read("Agencies(1)?$expand=Bookings($count=true)")["Bookings@odata.count"] == 2)
    }

    @Test func expandBatchesOverManyParents() throws {
        let store = try ReadTestStore()
        try store.db.execute("BEGIN")
        for id in 1...1_203 {
            try store.insert("Agencies", [("ID", .integer(Int64(id))), ("Name", .text("A\(id)"))])
            try store.insert("Bookings", [("AgencyID", .integer(Int64(id))), ("Number", .integer(1)), ("Customer", .text("c\(id)"))])
        }
        try store.db.execute("COMMIT")
        let result = try store.read("Agencies?$expand=Bookings")
        let all = result["value"]?.arrayValue ?? []
        #expect(all.count == 1_203)
        #expect(all.allSatisfy { $0["Bookings"]?[0]?["Customer"]?.stringValue == "c\($0["ID"]?.int64Value ?? 0)" })
    }

    @Test func v2Shapes() throws {
        let store = try ReadTestStore.sample(dialect: .v2)
        let collection = try store.read("Agencies?$filter=ID eq 1&$inlinecount=allpages")
        #expect(collection["d"]?["__count"] == "1")
        let first = collection["d"]?["results"]?[0]
        #expect(first?["__metadata"] == ["uri": "http://host/service/Agencies(1)", "type": "Test.Agency", "etag": "W/\"1\""])
        #expect(first?["Bookings"] == ["__deferred": ["uri": "http://host/service/Agencies(1)/Bookings"]])
        #expect(first?["Big"] == "9007199254740993")
        #expect(first?["Revenue"] == "9.5")
        #expect(first?["Founded"] == "/Date(1577836800000+0000)/")
        #expect(first?["Address"] == ["Street": "Via 1", "City": "Rome"])
        #expect(try store.read("Agencies?$filter=ID eq 1")["d"]?["__count"] == nil)
        let entity = try store.read("Bookings(AgencyID=1,Number=2)?$expand=Agency")
        #expect(entity["d"]?["__metadata"]?["uri"] == "http://host/service/Bookings(AgencyID=1,Number=2)")
        #expect(entity["d"]?["Agency"]?["Name"] == "Alpha")
        #expect(entity["d"]?["Items"]?["__deferred"]?["uri"] == "http://host/service/Bookings(AgencyID=1,Number=2)/Items")
        let expanded = try store.read("Agencies(1)?$expand=Bookings")
        #expect(expanded["d"]?["Bookings"]?["results"]?.arrayValue?.count == 2)
        #expect(try store.read("Items('i1')")["d"]?["__metadata"]?["uri"] == "http://host/service/Items('i1')")
        #expect(try store.read("Agencies(3)")["d"]?["__metadata"]?["uri"] == "http://host/service/Agencies(3)")
        #expect(try store.read("Agencies(1)/Name") == ["d": ["Name": "Alpha"]])
        #expect(try store.read("Agencies?$filter=substringof('lph', Name)")["d"]?["results"]?[0]?["ID"] == 1)
        #expect(try store.read("Agencies?$filter=Founded lt datetimeoffset'2020-01-01T00:30:00%2B01:00'")["d"]?["results"]?.arrayValue?.count == 0)
        #expect(try store.read("Agencies?$filter=Revenue eq 10M")["d"]?["results"]?[0]?["ID"] == 2)
        #expect(try store.read("Agencies?$filter=Big eq 9007199254740993L")["d"]?["results"]?[0]?["ID"] == 1)
    }

    @Test func explainShowsOneStatementWithParameters() throws {
        let store = try ReadTestStore.sample()
        let explanation = try store.reader.explain(url: "Agencies?$filter=Name eq 'x'' OR 1=1 --' and Rating gt 3&$top=5&$count=true")
        #expect(!explanation.sql.contains("OR 1=1"))
        #expect(explanation.parameters == ["'x'' OR 1=1 --'", "3", "5"])
        #expect(explanation.countSQL?.hasPrefix("SELECT count(*)") == true)
    }
}
