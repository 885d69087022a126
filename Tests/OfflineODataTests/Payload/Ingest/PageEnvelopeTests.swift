import Testing
@_spi(Tool) @testable import OfflineOData

/// What a kept page says about its download, read without writing its entities.
@Suite struct PageEnvelopeTests {
    private func summary(_ text: String, valueLimit: PageValueLimit = .none) throws -> PageSummary {
        try PageEnvelope.summary(of: Array(text.utf8).withUnsafeBytes { JSONInput($0) }, valueLimit: valueLimit)
    }

    private func refusal(_ text: String, limit: Int) -> ODataError? {
        do {
            _ = try summary(text, valueLimit: PageValueLimit(maximumSize: limit))
            return nil
        } catch {
            return error as? ODataError
        }
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

    // MARK: - The value limit (HTTPOptions.maximumValueSize)

    @Test func aValueAboveTheLimitIsRefusedNamingItsPropertyAndTheLimit() throws {
        let long = String(repeating: "x", count: 11)
        let refused = try #require(refusal(#"{"value":[{"ID":1,"Name":"short"},{"ID":2,"Name":"\#(long)"}]}"#, limit: 10))
        #expect(refused.code == .network)
        #expect(refused.message.contains("the string of 'Name' is 11 bytes, more than the maximum value size of 10 bytes"))
        #expect(refused.message.contains("--max-value-size"))
        // Exactly at the limit passes; the page is summarized as without a limit.
        let page = #"{"value":[{"ID":1,"Name":"\#(String(repeating: "x", count: 10))"}],"@count":3}"#
        #expect(try summary(page, valueLimit: PageValueLimit(maximumSize: 10)) == summary(page))
    }

    @Test func nestedValuesNumbersNamesAndV2PagesAreChecked() throws {
        let digits = String(repeating: "1", count: 12)
        let nested = try #require(refusal(#"{"value":[{"ID":1,"Address":{"Lines":["a","\#(digits)"]}}]}"#, limit: 10))
        #expect(nested.message.contains("the string of 'Address/Lines' is 12 bytes"))
        let number = try #require(refusal(#"{"d":{"results":[{"Amount":\#(digits)}]}}"#, limit: 10))
        #expect(number.message.contains("the number of 'Amount' is 12 bytes"))
        let name = try #require(refusal(#"{"d":[{"\#(digits)":1}]}"#, limit: 10))
        #expect(name.message.contains("a member name is 12 bytes"))
        let single = try #require(refusal(#"{"ID":1,"Note":"\#(digits)"}"#, limit: 10))
        #expect(single.message.contains("the string of 'Note' is 12 bytes"))
        // Escapes count as written: the JSON text's bytes bound the decoded value's.
        let escaped = try #require(refusal(#"{"value":[{"Name":"\u0041\u0042"}]}"#, limit: 10))
        #expect(escaped.message.contains("the string of 'Name' is 12 bytes"))
    }

    @Test func theLimitLeavesSyntaxErrorsAsTheyWere() {
        let refused = refusal(#"{"value":[{"ID":1,}]}"#, limit: 10)
        #expect(refused?.code == .syntax)
    }
}
