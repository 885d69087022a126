import Testing
@_spi(Tool) @testable import OfflineOData

/// Undoing an entity's local changes: the queue, the error archive and the entity's values.
@Suite struct LocalUndoTests {
    typealias Fixture = LocalWriterTests.Fixture

    @Test func anUpdateIsUndoneToTheSyncedValuesAndLeavesTheQueue() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced name")
        try f.download("00000002", name: "Other")
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"First","city":"Rome"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Second"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000002')", #"{"city":"Oslo"}"#)

        let outcome = try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')")
        #expect(outcome == UndoOutcome(entitySet: "TravelagencyCollection", action: .restored, droppedRequests: 2))
        #expect(try f.agency("00000001", "name")! == ("Synced name", nil))
        #expect(try f.agency("00000001", "city")?.0 == nil)
        #expect(try f.agency("00000001", "_ood_etag")?.0 == #"W/"1""#)
        // The other entity's change stays queued.
        #expect(try f.queue().map(\.url) == ["TravelagencyCollection('00000002')"])
        #expect(try f.agency("00000002", "city")! == ("Oslo", "updated"))
        // Nothing is left to undo, and the saved values are gone.
        #expect(try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')").action == .nothing)
        // Only the other entity's saved values are left: one per column, its ETag and its type.
        let columns = try #require(f.store.schema.table(forEntitySet: "TravelagencyCollection")).columns.count
        #expect(try savedValues(f) == columns + 2)
    }

    @Test func aDeleteIsUndoneAndTheEntityIsReadableAgain() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Kept")
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Changed"}"#)
        _ = try f.write("DELETE", "TravelagencyCollection('00000001')")
        let outcome = try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')")
        #expect(outcome.action == .restored && outcome.droppedRequests == 2)
        #expect(try f.agency("00000001", "name")! == ("Kept", nil))
        #expect(try f.queue().isEmpty)
        let read = try f.store.execute(method: "GET", url: "TravelagencyCollection('00000001')")
        #expect(String(decoding: read.body, as: UTF8.self).contains("Kept"))
    }

    @Test func aCreateIsUndoneByRemovingTheEntity() throws {
        let f = try Fixture()
        _ = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000099","name":"New"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('00000099')", #"{"city":"Rome"}"#)
        let outcome = try f.store.undoPendingChanges(url: "TravelagencyCollection('00000099')")
        #expect(outcome == UndoOutcome(entitySet: "TravelagencyCollection", action: .removed, droppedRequests: 2))
        #expect(try f.agency("00000099", "name") == nil)
        #expect(try f.queue().isEmpty)
        #expect(try savedValues(f) == 0)
    }

    @Test func aRefusedChangeIsUndoneFromTheErrorArchive() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Synced")
        let write = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"Refused"}"#)
        let queued = try #require(try f.queue().first { $0.id == write.queueID })
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                _ = try UploadRecorder(schema: f.store.schema, dialect: .v4).archive(queued, status: 412, message: "changed by someone else", in: db)
            }
        }
        #expect(try f.store.file.errorArchive().count == 1)
        let outcome = try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')")
        #expect(outcome.action == .restored && outcome.droppedRequests == 1)
        #expect(try f.store.file.errorArchive().isEmpty)
        #expect(try f.agency("00000001", "name")! == ("Synced", nil))
        #expect(try f.agency("00000001", "_ood_error")?.0 == "0")
    }

    @Test func badAddressesAreRefusedWithNothingChanged() throws {
        let f = try Fixture()
        try f.download("00000001", name: "A")
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"B"}"#)
        #expect { try f.store.undoPendingChanges(url: "TravelagencyCollection('00000404')") } throws: {
            ($0 as? ODataError)?.code == .notFound
        }
        #expect { try f.store.undoPendingChanges(url: "TravelagencyCollection") } throws: { ($0 as? ODataError)?.code == .semantic }
        #expect { try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001'") } throws: { ($0 as? ODataError)?.code == .syntax }
        #expect(try f.queue().count == 1)
        #expect(try f.agency("00000001", "name")! == ("B", "updated"))
    }

    @Test func anAcknowledgedChangeForgetsTheSavedValues() throws {
        let f = try Fixture()
        try f.download("00000001", name: "A")
        _ = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"name":"B"}"#)
        #expect(try savedValues(f) > 0)
        let request = try #require(try f.queue().first)
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try UploadRecorder(schema: f.store.schema, dialect: .v4).acknowledge(request, HTTPResponse(status: 204, headers: [], body: []), answer: nil, in: db)
            }
        }
        #expect(try savedValues(f) == 0)
        #expect(try f.store.undoPendingChanges(url: "TravelagencyCollection('00000001')").action == .nothing)
        #expect(try f.agency("00000001", "name")! == ("B", nil))
    }

    /// Rows in `ood_original`.
    private func savedValues(_ f: Fixture) throws -> Int {
        try f.store.file.withConnection { db throws(ODataError) in Int(try db.scalarInt("SELECT count(*) FROM ood_original") ?? -1) }
    }
}
