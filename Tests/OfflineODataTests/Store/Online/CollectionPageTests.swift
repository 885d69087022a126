import Testing
@_spi(Tool) @testable import OfflineOData

/// Pages of a collection taken apart and joined (``CollectionPage``, ``JoinedCollection``), without a service.
@Suite struct CollectionPageTests {
    func page(_ text: String, _ dialect: Dialect = .v4) throws -> CollectionPage {
        let page = try CollectionPage.read(Array(text.utf8), dialect: dialect)
        return try #require(page, "not read as a collection page: \(text)")
    }

    func joined(_ pages: [CollectionPage], top: Int? = nil) throws -> JSONValue {
        var joined = try JoinedCollection(first: #require(pages.first), top: top)
        for page in pages.dropFirst() { joined.append(page) }
        return try JSONValue.parse(joined.serialized())
    }

    @Test func aV4PageGivesItsEntitiesAndNextLinkAndTheJoinKeepsTheFirstPagesMembersInOrder() throws {
        let first = try page(#"{"@odata.context":"$metadata#B","@odata.count":3, "value": [ {"id":1} ,{"id":2.50}],"@odata.nextLink":"B?$skiptoken=2"}"#)
        #expect(first.nextLink == "B?$skiptoken=2")
        #expect(first.entities.map { String(decoding: first.bytes[$0], as: UTF8.self) } == [#"{"id":1}"#, #"{"id":2.50}"#])
        let last = try page(#"{"@odata.context":"$metadata#B","value":[{"id":3}],"@odata.deltaLink":"B?$deltatoken=9"}"#)
        #expect(last.nextLink == nil)
        let whole = try joined([first, last])
        // Numbers keep their text (2.50), the count is the first page's, the delta link the last page's, no next link.
        #expect(String(decoding: whole.serialized(), as: UTF8.self)
                == #"{"@odata.context":"$metadata#B","@odata.count":3,"value":[{"id":1},{"id":2.50},{"id":3}],"@odata.deltaLink":"B?$deltatoken=9"}"#)
    }

    @Test func aV2PageIsReadInsideDAndJoinedThere() throws {
        let first = try page(#"{"d":{"results":[{"n":"a"}],"__count":"2","__next":"http://h/S/C?$skiptoken=1"}}"#, .v2)
        #expect(first.nextLink == "http://h/S/C?$skiptoken=1")
        let last = try page(#"{"d":{"results":[{"n":"b"}],"__count":"2"}}"#, .v2)
        let whole = try joined([first, last])
        #expect(String(decoding: whole.serialized(), as: UTF8.self) == #"{"d":{"results":[{"n":"a"},{"n":"b"}],"__count":"2"}}"#)
    }

    @Test func topCutsTheJoinedEntitiesAndSaysWhenThereAreEnough() throws {
        var joined = JoinedCollection(first: try page(#"{"value":[1,2],"@odata.nextLink":"x"}"#), top: 3)
        #expect(!joined.hasEnough)
        joined.append(try page(#"{"value":[3,4],"@odata.nextLink":"y"}"#))
        #expect(joined.hasEnough && joined.entityCount == 4)
        #expect(String(decoding: joined.serialized(), as: UTF8.self) == #"{"value":[1,2,3]}"#)
    }

    @Test func answersThatAreNoCollectionPageAreNotReadAsOne() throws {
        #expect(try CollectionPage.read(Array(#"{"id":1,"name":"x"}"#.utf8), dialect: .v4) == nil)
        #expect(try CollectionPage.read(Array(#"{"d":{"agencynum":"1"}}"#.utf8), dialect: .v2) == nil)
        #expect(try CollectionPage.read(Array(#"{"value":"text"}"#.utf8), dialect: .v4) == nil)
        #expect(try CollectionPage.read(Array("42".utf8), dialect: .v4) == nil)
        #expect(throws: ODataError.self) { try CollectionPage.read(Array(#"{"value":[1,"#.utf8), dialect: .v4) }
    }

    /// The online read's `$top` is the parser's, kept with the resolution (no scan of the text).
    @Test func theTopOfAURLIsReadFromItsQuery() throws {
        let resolver = RequestResolver(model: try MetadataReader.read(FlightSample.v4Metadata), dialect: .v4,
                                       limits: LocalReader.defaultParserLimits)
        func top(_ url: String) -> Int? { resolver.resolve(method: .get, url: url).top }
        #expect(top("B?$filter=x eq 1&$top=30&$skip=2") == 30)
        #expect(top("B?%24top=7") == 7)
        #expect(top("B?$top=-1") == nil)
        #expect(top("B?$topx=1") == nil)
        #expect(top("B") == nil)
    }
}
