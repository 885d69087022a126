import Testing
@_spi(Tool) @testable import OfflineOData

/// Settling requests in doubt: what the verdict rests on is what it says.
@Suite struct InDoubtReconcilerTests {
    typealias Fixture = UploaderTests.Fixture

    /// Reads of the entity answer it with the first update applied; nothing else is expected.
    static func service(_ request: ReceivedRequest) -> TestHTTPBehaviour {
        guard request.method == "GET" else { return .text(500, "") }
        return .text(200, #"{"agencynum":"00000001","name":"A","city":"Rome","@odata.etag":"W/\"2\""}"#,
                     headers: [("Content-Type", "application/json")])
    }

    static func reconciler(_ f: Fixture) throws -> InDoubtReconciler {
        InDoubtReconciler(transport: try HTTPTransport(), serviceRoot: f.server.baseURL + "/svc/", dialect: .v4,
                          file: f.store.file, schema: f.store.schema,
                          repeatable: try RepeatableRequests.load(model: f.store.schema.model, file: f.store.file))
    }

    /// Two updates in doubt, the second's body no longer readable against the model (as after a
    /// model change): the first is found applied; the second cannot be compared, so it is not
    /// called "not applied" (and sent again) but goes to the archive as in doubt, saying why.
    @Test func aBodyThatNoLongerReadsEndsTheVerdictVisibly() throws {
        let f = try Fixture(Self.service)
        try f.seed("00000001")
        let url = "TravelagencyCollection('00000001')"
        _ = try f.store.write(method: "PATCH", url: url, body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: url, body: Array(#"{"name":"B"}"#.utf8))
        try f.store.file.withConnection { db throws(ODataError) in
            try db.prepare("UPDATE ood_request_queue SET body = ?1 WHERE id = 2").run([.text(#"{"nameGone":"B"}"#)])
            try RequestQueueTable.markInDoubt(ids: [1, 2], in: db)
        }
        let outcome = try Self.reconciler(f).reconcile(cancellation: nil)
        #expect(outcome.applied == 1)
        #expect(outcome.archived == 1)
        #expect(try f.store.file.queuedRequests().isEmpty)
        let archived = try f.store.file.errorArchive()
        #expect(archived.map(\.request.id) == [2])
        #expect(archived.first?.kind == .inDoubt)
        #expect(archived.first?.message.contains("no longer reads") == true, "\(archived.first?.message ?? "")")
        #expect(f.server.requests.map(\.method) == ["GET"])
    }

    /// The first request's body no longer reads: nothing can be compared, and the group needs a
    /// decision, rather than being sent again as if the service had none of it.
    @Test func aFirstBodyThatNoLongerReadsNeedsADecision() throws {
        let f = try Fixture(Self.service)
        try f.seed("00000001")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Paris"}"#.utf8))
        try f.store.file.withConnection { db throws(ODataError) in
            try db.prepare("UPDATE ood_request_queue SET body = ?1 WHERE id = 1").run([.text(#"{"cityGone":"Paris"}"#)])
            try RequestQueueTable.markInDoubt(ids: [1], in: db)
        }
        let outcome = try Self.reconciler(f).reconcile(cancellation: nil)
        #expect(outcome.applied == 0 && outcome.archived == 1)
        #expect(try f.store.file.errorArchive().first?.message.contains("no longer reads") == true)
    }

    /// Readable bodies keep the verdict as before: the applied run leaves, the rest is sent again.
    @Test func readableBodiesAfterTheAppliedRunAreSentAgain() throws {
        let f = try Fixture(Self.service)
        try f.seed("00000001")
        let url = "TravelagencyCollection('00000001')"
        _ = try f.store.write(method: "PATCH", url: url, body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: url, body: Array(#"{"name":"B"}"#.utf8))
        try f.store.file.withConnection { db throws(ODataError) in try RequestQueueTable.markInDoubt(ids: [1, 2], in: db) }
        let outcome = try Self.reconciler(f).reconcile(cancellation: nil)
        #expect(outcome.applied == 1 && outcome.archived == 0)
        let queue = try f.store.file.queuedRequests()
        #expect(queue.map(\.id) == [2] && queue.first?.state == .pending)
    }
}
