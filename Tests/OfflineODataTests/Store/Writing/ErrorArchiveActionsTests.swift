import Testing
@_spi(Tool) @testable import OfflineOData

/// The error archive's actions: requeue (corrected or not) and discard with what builds on it.
@Suite struct ErrorArchiveActionsTests {
    typealias Fixture = LocalWriterTests.Fixture

    /// Archives the queued request `id` and the later queued requests on its entity, and marks the
    /// entity in error, as an upload does when the service refuses it.
    private func archive(_ f: Fixture, _ id: Int64, kind: ArchiveKind = .refused) throws {
        let request = try #require(try f.queue().first { $0.id == id })
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.archive(id: id, httpStatus: 400, message: "refused", kind: kind, in: db)
                guard let setName = request.entitySet, let entityID = request.entityID else { return }
                for follower in try RequestQueueTable.requests(entitySet: setName, entityID: entityID, in: db) {
                    try RequestQueueTable.archive(id: follower.id, httpStatus: nil, message: "not sent", in: db)
                }
                try db.prepare("UPDATE \"es/TravelagencyCollection\" SET \"_ood_error\" = 1 WHERE \"_ood_id\" = ?1")
                    .run([.integer(entityID)])
            }
        }
    }

    private func archivedIDs(_ f: Fixture) throws -> [Int64] { try f.store.file.errorArchive().map(\.request.id) }

    // MARK: - Requeue

    @Test func aRequeuedRequestGoesBackBeforeTheRequestsQueuedAfterIt() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        try f.download("00000002", name: "Other")
        let refused = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Refused"}"#)
        let follower = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"city":"Rome"}"#)
        try archive(f, refused.queueID, kind: .inDoubt)
        let later = try f.write("PATCH", "TravelagencyCollection('00000002')", #"{"city":"Oslo"}"#)
        #expect(try archivedIDs(f) == [refused.queueID, follower.queueID])
        #expect(try f.queue().map(\.id) == [later.queueID])

        #expect(try f.store.requeueArchivedRequest(id: refused.queueID) == 2)
        let queue = try f.queue()
        #expect(queue.map(\.id) == [refused.queueID, follower.queueID, later.queueID])
        #expect(queue.allSatisfy { $0.state == .pending })
        #expect(queue.first?.body == #"{"name":"Refused"}"#)
        #expect(try archivedIDs(f).isEmpty)
        #expect(try f.agency("00000001", "_ood_error")?.0 == "0")
        #expect(try f.agency("00000001", "name")! == ("Refused", "updated"))
        // Nothing is left to requeue.
        #expect { try f.store.requeueArchivedRequest(id: refused.queueID) } throws: { error in
            (error as? ODataError)?.code == .notFound && (error as? ODataError)?.message.contains("#\(refused.queueID)") == true
        }
    }

    @Test func aCorrectedBodyIsValidatedAndShownInTheRow() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        let refused = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Refused","city":"Rome"}"#)
        try archive(f, refused.queueID)

        // Refused bodies change nothing.
        for (body, code) in [(#"["not an object"]"#, ODataError.Code.syntax), (#"{"nmae":"x"}"#, .semantic),
                             (#"{"name":12}"#, .semantic), (#"{"country":"much too long"}"#, .constraint),
                             (#"{"agencynum":"00000002"}"#, .constraint)] {
            #expect { try f.store.requeueArchivedRequest(id: refused.queueID, body: body) } throws: { ($0 as? ODataError)?.code == code }
        }
        #expect(try archivedIDs(f) == [refused.queueID])
        #expect(try f.agency("00000001", "name")! == ("Refused", "updated"))

        #expect(try f.store.requeueArchivedRequest(id: refused.queueID, body: #"{"name":"Corrected"}"#) == 1)
        #expect(try f.queue().map(\.body) == [#"{"name":"Corrected"}"#])
        #expect(try f.agency("00000001", "name")! == ("Corrected", "updated"))
        #expect(try f.agency("00000001", "_ood_error")?.0 == "0")
        // An undo still goes back to the synced values.
        #expect(try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')").action == .restored)
        #expect(try f.agency("00000001", "name")! == ("Synced", nil))
    }

    @Test func aCorrectedBodyLeavesWhatALaterRequestSetsAndAPutNullsTheRest() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        let refused = try f.write("PUT", "TravelagencyCollection('00000001')", #"{"name":"Put","city":"Rome"}"#)
        let follower = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Later"}"#)
        try archive(f, refused.queueID)
        #expect(try f.store.requeueArchivedRequest(id: refused.queueID, body: #"{"name":"Fixed","street":"Main"}"#) == 2)
        #expect(try f.queue().map(\.id) == [refused.queueID, follower.queueID])
        #expect(try f.agency("00000001", "name")?.0 == "Later")
        #expect(try f.agency("00000001", "street")?.0 == "Main")
        #expect(try f.agency("00000001", "city")?.0 == nil)
    }

    @Test func aRefusedCreateAloneMayTakeAnotherKey() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Taken")
        let create = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000099","name":"New"}"#)
        try archive(f, create.queueID)
        // Not a key another entity of the store has.
        #expect { try f.store.requeueArchivedRequest(id: create.queueID, body: #"{"agencynum":"00000001","name":"New"}"#) } throws: {
            ($0 as? ODataError)?.code == .constraint
        }
        #expect(try f.store.requeueArchivedRequest(id: create.queueID, body: #"{"agencynum":"00000098","name":"New"}"#) == 1)
        #expect(try f.agency("00000099", "name") == nil)
        #expect(try f.agency("00000098", "name")! == ("New", "created"))
        #expect(try f.queue().map(\.method.rawValue) == ["POST"])
    }

    @Test func aCreateWithLaterRequestsKeepsItsKey() throws {
        let f = try Fixture()
        let create = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000099","name":"New"}"#)
        let follower = try f.write("PATCH", "TravelagencyCollection('00000099')", #"{"city":"Rome"}"#)
        try archive(f, create.queueID)
        #expect { try f.store.requeueArchivedRequest(id: create.queueID, body: #"{"agencynum":"00000098"}"#) } throws: {
            ($0 as? ODataError)?.code == .constraint
        }
        // The follower alone goes back, corrected; the create stays archived.
        #expect(try f.store.requeueArchivedRequest(id: follower.queueID, body: #"{"city":"Oslo"}"#) == 1)
        #expect(try f.agency("00000099", "city")! == ("Oslo", "created"))
        #expect(try f.queue().count == 1 && archivedIDs(f) == [create.queueID])
        #expect(try f.agency("00000099", "_ood_error")?.0 == "1")
    }

    @Test func requeuingOneOfSeveralArchivedEntitiesKeepsTheOthersMarked() throws {
        let f = try Fixture()
        try f.download("00000001", name: "A")
        try f.download("00000002", name: "B")
        let first = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"A2"}"#)
        let second = try f.write("PATCH", "TravelagencyCollection('00000002')", #"{"name":"B2"}"#)
        try archive(f, first.queueID)
        try archive(f, second.queueID)
        #expect(try f.store.requeueArchivedRequest(id: second.queueID) == 1)
        #expect(try archivedIDs(f) == [first.queueID])
        #expect(try f.agency("00000001", "_ood_error")?.0 == "1")
        #expect(try f.agency("00000002", "_ood_error")?.0 == "0")
        #expect { try f.store.requeueArchivedRequest(id: 9999) } throws: { ($0 as? ODataError)?.code == .notFound }
    }

    // MARK: - Discard

    @Test func discardingAnArchivedCreateRemovesTheEntity() throws {
        let f = try Fixture()
        let create = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000099","name":"New"}"#)
        let follower = try f.write("PATCH", "TravelagencyCollection('00000099')", #"{"city":"Rome"}"#)
        try archive(f, create.queueID)
        #expect(try archivedIDs(f) == [create.queueID, follower.queueID])
        // A change made after the refusal builds on it too.
        _ = try f.write("PATCH", "TravelagencyCollection('00000099')", #"{"street":"Main"}"#)

        #expect(try f.store.deleteArchivedRequests(id: create.queueID) == 3)
        #expect(try f.agency("00000099", "name") == nil)
        #expect(try f.queue().isEmpty && archivedIDs(f).isEmpty)
        #expect { try f.store.execute(method: "GET", url: "TravelagencyCollection('00000099')") } throws: {
            ($0 as? ODataError)?.code == .notFound
        }
        let all = try f.store.execute(method: "GET", url: "TravelagencyCollection")
        #expect(!String(decoding: all.body, as: UTF8.self).contains("00000099"))
    }

    @Test func discardingAnArchivedUpdateRestoresTheSyncedValues() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        try f.download("00000002", name: "Other")
        let refused = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Refused"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"city":"Rome"}"#)
        try archive(f, refused.queueID)
        let other = try f.write("PATCH", "TravelagencyCollection('00000002')", #"{"city":"Oslo"}"#)

        #expect(try f.store.deleteArchivedRequests(id: refused.queueID) == 2)
        #expect(try f.agency("00000001", "name")! == ("Synced", nil))
        #expect(try f.agency("00000001", "city")?.0 == nil)
        #expect(try f.agency("00000001", "_ood_error")?.0 == "0")
        #expect(try f.queue().map(\.id) == [other.queueID])
        #expect(try archivedIDs(f).isEmpty)
    }

    @Test func discardingALaterArchivedRequestKeepsTheEarlierOnes() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        let first = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"First"}"#)
        let second = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"city":"Rome"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"street":"Main"}"#)
        try archive(f, first.queueID)
        #expect(try f.store.deleteArchivedRequests(id: second.queueID) == 2)
        #expect(try archivedIDs(f) == [first.queueID])
        #expect(try f.agency("00000001", "name")! == ("First", "updated"))
        #expect(try f.agency("00000001", "_ood_error")?.0 == "1")
    }

    @Test func discardingAllRevertsEveryArchivedEntity() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        let create = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000099","name":"New"}"#)
        let update = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Refused"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"city":"Rome"}"#)
        try archive(f, create.queueID)
        try archive(f, update.queueID)
        #expect(try archivedIDs(f).count == 3)
        #expect(try f.store.deleteArchivedRequests() == 3)
        #expect(try f.agency("00000099", "name") == nil)
        #expect(try f.agency("00000001", "name")! == ("Synced", nil))
        #expect(try f.queue().isEmpty && archivedIDs(f).isEmpty)
        #expect { try f.store.deleteArchivedRequests(id: create.queueID) } throws: { ($0 as? ODataError)?.code == .notFound }
    }
}
