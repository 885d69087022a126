import Testing
@_spi(Tool) @testable import OfflineOData

/// The JSON summary of `$metadata` that the C API (`ood_metadata`) and the bindings hand out.
@Suite struct ModelSummaryJSONTests {
    static func summary(_ file: String) throws -> JSONValue {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        let bytes = try #require(readFile(path + "/Examples/FlightSample/" + file))
        return try JSONValue.parse(Array(MetadataReader.read(bytes).summaryJSONText.utf8))
    }

    @Test(arguments: ["metadata-v4.xml", "metadata-v2.xml"])
    func namesTheSetsTheirKeysAndTheOperations(file: String) throws {
        let summary = try Self.summary(file)
        let sets = try #require(summary["entitySets"]?.arrayValue)
        #expect(sets.compactMap { $0["name"]?.stringValue }.sorted()
                == ["BookingCollection", "CarrierCollection", "FlightCollection", "TravelagencyCollection"])
        let flights = try #require(sets.first { $0["name"]?.stringValue == "FlightCollection" })
        #expect(flights["key"]?.arrayValue?.compactMap(\.stringValue) == ["carrid", "connid", "fldate"])
        let carrier = flights["navigationProperties"]?.arrayValue?.first { $0["name"]?.stringValue == "FlightCarrier" }
        #expect(carrier?["target"]?.stringValue == "CarrierCollection" && carrier?["collection"] == .bool(false))
        let agencies = try #require(sets.first { $0["name"]?.stringValue == "TravelagencyCollection" })
        let agencynum = agencies["properties"]?.arrayValue?.first { $0["name"]?.stringValue == "agencynum" }
        #expect(agencynum?["type"]?.stringValue == "Edm.String" && agencynum?["nullable"] == .bool(false))

        let operations = (summary["functionImports"]?.arrayValue ?? []) + (summary["actionImports"]?.arrayValue ?? [])
        let details = try #require(operations.first { $0["name"]?.stringValue == "GetAgencyDetails" })
        #expect(details["httpMethod"]?.stringValue == "GET")
        #expect(details["returnType"]?.stringValue == "RMTSAMPLEFLIGHT.Travelagency")
        #expect(details["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["agencynum"])
        let phone = try #require(operations.first { $0["name"]?.stringValue == "UpdateAgencyPhoneNo" })
        #expect(phone["httpMethod"]?.stringValue == "POST")
        #expect(phone["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["agencynum", "telephone"])
    }
}
