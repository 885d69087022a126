import Testing
@_spi(Tool) @testable import OfflineOData

/// A watch across a model adoption (issue 34): it follows the store to its new model instead of
/// reading on under the model it started with. Against the real V4 service, restarted with an
/// edited model (``ServiceModelChangeTests/Scenario``).
@Suite(.serialized) struct LiveQueryModelChangeTests {
    /// The body of `answers`' last one, "" for none or an error.
    static func lastBody(_ answers: [Result<StoreResponse, ODataError>]) -> String {
        guard case .success(let response)? = answers.last else { return "" }
        return response.text
    }

    @Test func aWatchFollowsAModelMigratedInPlaceByADownload() throws {
        let world = try ServiceModelChangeTests.Scenario(.v4)
        defer { world.close() }
        let store = world.store
        let key = try #require(try ServiceModelChangeTests().agencies(store).first)
        let log = AnswerLog()
        let query = try store.watch("TravelagencyCollection('\(key)')") { log.record($0) }
        defer { query.cancel() }
        #expect(log.wait(for: 1))
        #expect(log.lastText?.contains("\"rating\"") == false)
        let dependenciesBefore = query.dependencies

        try world.swapModel([
            (#"<Property Name="url" Type="Edm.String" MaxLength="255""#,
             #"<Property Name="rating" Type="Edm.Int32"/><Property Name="url" Type="Edm.String" MaxLength="255""#),
        ])
        try ServiceModelChangeTests().changeOnService(world.backend, key, #"{"rating":7}"#)
        // The download migrates the store in place, then fills the new column: the watch's
        // answer has it (under the old model the read would never select it).
        _ = try store.performAndWait(.download())
        _ = try store.performAndWait(.download())
        #expect(log.wait { answers in
            guard case .success(let response)? = answers.last else { return false }
            return response.text.contains("\"rating\":7")
        }, "\(log.lastText ?? "")")
        #expect(query.dependencies == dependenciesBefore)
        // Still live: a local write under the new model is delivered.
        _ = try store.executeAndWait(ODataRequest(method: "PATCH", url: "TravelagencyCollection('\(key)')",
                                                  body: Array(#"{"rating":9}"#.utf8)))
        #expect(log.wait { answers in
            guard case .success(let response)? = answers.last else { return false }
            return response.text.contains("\"rating\":9")
        }, "\(log.lastText ?? "")")
    }

    @Test func aWatchFollowsARebuildAndAReadTheNewModelRefusesDeliversItsError() throws {
        let world = try ServiceModelChangeTests.Scenario(.v4)
        defer { world.close() }
        let store = world.store
        let key = try #require(try ServiceModelChangeTests().agencies(store).first)
        let entityLog = AnswerLog(), urlLog = AnswerLog()
        let entity = try store.watch("TravelagencyCollection('\(key)')") { entityLog.record($0) }
        let urls = try store.watch("TravelagencyCollection?$select=url") { urlLog.record($0) }
        defer { entity.cancel(); urls.cancel() }
        #expect(entityLog.wait(for: 1) && urlLog.wait(for: 1))
        #expect(entityLog.lastText?.contains("\"url\"") == true)
        _ = try store.executeAndWait(ODataRequest(method: "PATCH", url: "TravelagencyCollection('\(key)')",
                                                  body: Array(#"{"name":"Rebuilt"}"#.utf8)))
        #expect(entityLog.wait { Self.lastBody($0).contains("Rebuilt") })

        try world.swapModel([(world.urlElement, "")])
        let adoption = try store.performAndWait(.adoptServiceModel(.rebuild))
        #expect(adoption.adopted)
        // The entity's answer under the new model: no `url`, the queued change kept.
        #expect(entityLog.wait { answers in
            let text = Self.lastBody(answers)
            return text.contains("Rebuilt") && !text.contains("\"url\"")
        }, "\(entityLog.lastText ?? "")")
        // Never an error on the way: no read under the old model ran on the migrated tables (an
        // error would end a watch's `AsyncSequence`).
        #expect(!entityLog.all.contains { if case .failure = $0 { true } else { false } }, "\(entityLog.all)")
        // A `$select` of the removed property: the new model refuses it, and the watch says so.
        #expect(urlLog.wait { answers in
            if case .failure? = answers.last { return true }
            return false
        }, "\(urlLog.lastText ?? "")")
    }
}
