import Testing
@_spi(Tool) @testable import OfflineOData

/// The headers of answers: what `StoreResponse.header` finds, and the headers an offline answer
/// has as a service would send them (an entity's `ETag`, a create's `Location`).
@Suite struct AnswerHeadersTests {
    static let root = "http://127.0.0.1:9/flight/"

    @Test func headersAreFoundWithoutCaseAndRepeatsAreJoined() {
        let response = StoreResponse(status: 200, contentType: "application/json", body: [],
                                     headers: [HTTPHeader("ETag", "W/\"3\""), HTTPHeader("Vary", "a"), HTTPHeader("vary", "b")])
        #expect(response.header("etag") == "W/\"3\"")
        #expect(response.header("VARY") == "a, b")
        #expect(response.header("Location") == nil)
        // Content-Type is always there, also where the headers lack it (offline answers).
        #expect(response.header("content-type") == "application/json")
    }

    @Test func offlineAnswersHaveTheETagOfOneEntityAndTheLocationOfACreate() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("h.store"), metadata: LocalWriterTests.metadata, serviceRoot: Self.root)
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in
            try db.prepare("INSERT INTO \"es/TravelagencyCollection\" (agencynum, name, \"_ood_etag\") VALUES (?1, ?2, 'W/\"7\"')")
                .run([.text("00000001"), .text("Downloaded")])
        }
        let read = try store.execute(method: "GET", url: "TravelagencyCollection('00000001')")
        #expect(read.header("ETag") == "W/\"7\"")
        let collection = try store.execute(method: "GET", url: "TravelagencyCollection")
        #expect(collection.header("ETag") == nil && collection.header("Location") == nil)

        let created = try store.execute(method: "POST", url: "TravelagencyCollection",
                                        body: Array(#"{"agencynum":"99000501","name":"Created","country":"US"}"#.utf8))
        #expect(created.status == 201)
        // A create in a collection answers one entity of it.
        #expect(created.shape == AnswerShape(kind: .entity, entitySet: "TravelagencyCollection", entityType: "RMTSAMPLEFLIGHT.Travelagency"))
        #expect(created.header("Location") == Self.root + "TravelagencyCollection('99000501')")
        // An entity created offline has no ETag until the service gives it one.
        #expect(try store.execute(method: "GET", url: "TravelagencyCollection('99000501')").header("ETag") == nil)
        let updated = try store.execute(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"name":"N"}"#.utf8))
        #expect(updated.status == 204 && updated.headers.isEmpty)
    }
}
