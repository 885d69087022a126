import Testing
@_spi(Tool) @testable import OfflineOData

/// `ODataStore.Options.indexes`: declared indexes are made when the store opens, listed by
/// status with their origin, and a bad one fails the open with a clear error.
@Suite struct StoreIndexOptionTests {
    @Test func declaredIndexesAreMadeOnOpenAndListedByStatusAndExplained() async throws {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.indexes = [IndexDeclaration(entitySet: "TravelagencyCollection", properties: ["city"])]
        let store = ODataStore.open(options)
        let status = try await store.perform(.status)
        #expect(status.indexes.map(\.name) == ["es/TravelagencyCollection/index/city"])
        #expect(status.indexes.first?.origin == .declared)
        #expect(status.jsonText.contains(#""indexes":[{"entitySet":"TravelagencyCollection","properties":["city"]"#))
        let explanation = try await store.perform(.explain(url: "TravelagencyCollection?$filter=city eq 'Boston'&$top=5"))
        #expect(explanation.plan.contains { $0.contains("USING INDEX es/TravelagencyCollection/index/city") })
        #expect(explanation.jsonText.contains(#""plan":["#))
        store.close()
    }

    @Test func anIndexOnAPropertyTheModelLacksFailsTheOpen() async throws {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.indexes = [IndexDeclaration(entitySet: "TravelagencyCollection", properties: ["mayor"])]
        let store = ODataStore.open(options)
        defer { store.close() }
        await #expect {
            try await store.perform(.status)
        } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .misuse && error.message.contains("no stored property 'mayor'")
        }
    }
}
