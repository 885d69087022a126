import Testing
@_spi(Tool) @testable import OfflineOData
import OfflineODataFoundation

/// Typed live queries (``ODataStore/watchEntities(_:as:interval:decoder:)`` and its kin): the
/// answers of a watch, decoded into the app's `Decodable` types.
@Suite struct TypedLiveQueryTests {
    private struct Agency: Decodable, Sendable, Equatable {
        var agencynum: String
        var name: String
        var city: String
    }

    @Test func aWatchedCollectionComesAsDecodedEntitiesEachTimeItChanges() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        let agencies = try store.watchEntities("TravelagencyCollection?$filter=city eq 'Boston'&$orderby=agencynum", as: Agency.self)
        var iterator = agencies.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000001")))
        #expect(try await iterator.next() == [Agency(agencynum: "00000001", name: "Agency 00000001", city: "Boston")])
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000002")))
        #expect(try await iterator.next()?.map(\.agencynum) == ["00000001", "00000002"])
        agencies.query.cancel()
        #expect(try await iterator.next() == nil)
    }

    @Test func aWatchedEntityAndCountComeDecodedAndADeletedEntityEndsItsSequence() async throws {
        let folder = TemporaryFolder()
        let store = ODataStore.open(offlineFlightOptions(in: folder))
        defer { store.close() }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000001")))
        let count = try store.watchCount("TravelagencyCollection")
        let entity = try store.watchEntity("TravelagencyCollection('00000001')", as: Agency.self)
        var counts = count.makeAsyncIterator(), entities = entity.makeAsyncIterator()
        #expect(try await counts.next() == 1)
        #expect(try await entities.next()?.name == "Agency 00000001")
        _ = try store.executeAndWait(ODataRequest(method: "PATCH", url: "TravelagencyCollection('00000001')",
                                                  body: Array(#"{"name":"Renamed"}"#.utf8)))
        #expect(try await entities.next()?.name == "Renamed")
        _ = try store.executeAndWait(ODataRequest(method: "DELETE", url: "TravelagencyCollection('00000001')"))
        #expect(try await counts.next() == 0)
        await #expect { _ = try await entities.next() } throws: { ($0 as? ODataError)?.code == .notFound }
        count.query.cancel()
    }
}
