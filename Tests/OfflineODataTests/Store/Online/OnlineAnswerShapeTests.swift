import Testing
@_spi(Tool) @testable import OfflineOData

/// An online answer says what it holds as an offline one does: from the request as the store
/// resolved it, not from the service's body or a URL read again.
@Suite(.serialized) struct OnlineAnswerShapeTests {
    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func onlineAnswersSayWhatTheyHold(kind: TestBackend.Kind) async throws {
        let backend = try TestBackend.start(kind, pageSize: 5)
        defer { backend.stop() }
        var options = ODataStore.Options(serviceRoot: backend.serviceRoot)
        options.mode = .online
        let store = ODataStore.open(options)
        defer { store.close() }

        let collection = try await store.get("TravelagencyCollection?$top=1")
        #expect(collection.shape.kind == .collection)
        #expect(collection.shape.entitySet == "TravelagencyCollection")
        #expect(collection.shape.entityType?.hasSuffix(".Travelagency") == true)
        let document = try JSONValue.parse(collection.body)
        let first = try #require((document["value"] ?? document["d"]?["results"])?[0]?["agencynum"]?.stringValue)
        let key = "TravelagencyCollection('\(first)')"
        #expect(try await store.get(key).shape.kind == .entity)
        let name = try await store.get(key + "/name").shape
        #expect(name.kind == .property && name.property == "name" && name.propertyType == "Edm.String")
        #expect(try await store.get(key + "/name/$value").shape.kind == .value)
        #expect(try await store.get("TravelagencyCollection/$count").shape.kind == .count)

        // One page: the first says what the collection is; a next link's page is the service's URL, not parsed.
        let page = try await store.execute(ODataRequest(url: "TravelagencyCollection", followsNextLinks: false))
        #expect(page.shape.kind == .collection && page.shape.entitySet == "TravelagencyCollection")
        let next = try #require(ODataRequest.page(after: page))
        #expect(try await store.execute(next).shape.kind == .other)
    }
}
