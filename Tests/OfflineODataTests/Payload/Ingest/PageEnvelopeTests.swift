import Testing
@_spi(Tool) @testable import OfflineOData

/// What a kept page says about its download, read without writing its entities.
@Suite struct PageEnvelopeTests {
    private func summary(_ text: String) throws -> PageSummary {
        try PageEnvelope.summary(of: Array(text.utf8).withUnsafeBytes { JSONInput($0) })
    }

    @Test func readsV4LinksCountAndEntries() throws {
        let page = try summary(#"""
            {"@odata.context":"$metadata#People","@odata.count":7,"value":[{"ID":1,"Friends":[{"ID":2}]},{"ID":3}],
             "@odata.nextLink":"People?$skiptoken=3","@odata.deltaLink":"People?$deltatoken=9"}
            """#)
        #expect(page == PageSummary(entities: 2, nextLink: "People?$skiptoken=3", deltaLink: "People?$deltatoken=9", count: 7))
    }

    @Test func readsV2ResultsAndArraysAndEscapedLinks() throws {
        let results = try summary(#"{"d":{"results":[{"a":1},{"a":2},{"a":3}],"__count":"12","__next":"http:\/\/h\/S?$skiptoken='3'"}}"#)
        #expect(results == PageSummary(entities: 3, nextLink: "http://h/S?$skiptoken='3'", count: 12))
        #expect(try summary(#"{"d":[{"a":1}]}"#) == PageSummary(entities: 1))
        #expect(try summary(#"[{"a":1},{"a":2}]"#) == PageSummary(entities: 2))
    }

    @Test func aSingleEntityIsOneEntryWithoutLinks() throws {
        #expect(try summary(#"{"@odata.context":"$metadata#People/$entity","ID":1,"value":3}"#) == PageSummary(entities: 1))
        #expect(try summary(#"{"d":{"ID":1,"Name":"x"}}"#) == PageSummary(entities: 1))
    }

    @Test func aPageThatIsNotJSONIsRefusedWithItsOffset() {
        #expect(throws: ODataError.self) { try summary(#"{"value":[{"ID":1}],"@odata.nextLink" "x"}"#) }
        #expect(throws: ODataError.self) { try summary(#"{"value":[]} trailing"#) }
        #expect(throws: ODataError.self) { try summary(#""text""#) }
    }
}
