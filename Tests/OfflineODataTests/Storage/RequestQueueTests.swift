import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct RequestQueueTests {
    @Test func appendsInOrderAndSurvivesReopening() throws {
        let folder = TemporaryFolder()
        let path = folder.file("queue.store")
        let store = try StoreFile(path: path)
        try store.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.append(QueuedRequest(method: .post, url: "TravelagencyCollection",
                                                           body: #"{"NAME":"A"}"#, entitySet: "TravelagencyCollection", entityID: 7), in: db)
                try RequestQueueTable.append(QueuedRequest(method: .patch, url: "TravelagencyCollection('1')",
                                                           body: #"{"CITY":"Rome"}"#, etag: #"W/"3""#), in: db)
                try RequestQueueTable.append(QueuedRequest(method: .delete, url: "CarrierCollection('LH')"), in: db)
            }
        }
        store.close()
        let reopened = try StoreFile(path: path)
        let queue = try reopened.queuedRequests()
        #expect(queue.map(\.method.rawValue) == ["POST", "PATCH", "DELETE"])
        #expect(queue.map(\.id) == queue.map(\.id).sorted())
        #expect(queue[0].entityID == 7 && queue[0].body == #"{"NAME":"A"}"#)
        #expect(queue[1].etag == #"W/"3""#)
        #expect(queue[2].body == nil)
        #expect(queue.allSatisfy { $0.createdAt.hasSuffix("Z") && $0.createdAt.count == 24 })
        reopened.close()
    }

    /// The method column is the wire text, read in any case; any other text is a damaged store,
    /// reported as such rather than trusted or trapped on.
    @Test func aStoredMethodIsReadInAnyCaseAndAnUnknownOneIsAClearError() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("m.store"))
        try store.withConnection { db throws(ODataError) in
            try RequestQueueTable.append(QueuedRequest(method: .merge, url: "A(1)", body: "{}"), in: db)
            try db.prepare("UPDATE ood_request_queue SET method = ?1").run([.text("merge")])
        }
        #expect(try store.queuedRequests().map(\.method) == [.merge])
        try store.withConnection { db throws(ODataError) in
            try db.prepare("UPDATE ood_request_queue SET method = ?1").run([.text("HEAD")])
        }
        #expect { try store.queuedRequests() } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .storage && error.message.contains("the method 'HEAD'")
        }
        store.close()
    }

    @Test func aRolledBackChangeLeavesNoQueuedRequest() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("q.store"))
        #expect(throws: ODataError.self) {
            try store.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    try RequestQueueTable.append(QueuedRequest(method: .post, url: "X"), in: db)
                    throw ODataError(.constraint, "the local change failed")
                }
            }
        }
        #expect(try store.queuedRequests().isEmpty)
        store.close()
    }

    @Test func archivingMovesARequestWithTheServicesAnswer() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("a.store"))
        let id = try store.withConnection { db throws(ODataError) in
            try RequestQueueTable.append(QueuedRequest(method: .patch, url: "A(1)", body: "{}"), in: db)
        }
        try store.withConnection { db throws(ODataError) in
            try RequestQueueTable.archive(id: id, httpStatus: 412, message: "Precondition Failed", in: db)
        }
        #expect(try store.queuedRequests().isEmpty)
        let archived = try store.errorArchive()
        #expect(archived.count == 1)
        #expect(archived.first?.request.id == id)
        #expect(archived.first?.request.url == "A(1)")
        #expect(archived.first?.httpStatus == 412)
        #expect(archived.first?.message == "Precondition Failed")
        store.close()
    }

    @Test func definingRequestsKeepOrderAndDownloadStateByNameAndURL() throws {
        let folder = TemporaryFolder()
        let store = try StoreFile(path: folder.file("d.store"))
        try store.setDefiningRequests([
            DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'"),
            DefiningRequest(name: "Flights", url: "FlightCollection"),
        ])
        try store.withConnection { db throws(ODataError) in
            try db.prepare("UPDATE ood_defining_request SET last_download = 'then', delta_link = 'd1'").run()
        }
        try store.setDefiningRequests([
            DefiningRequest(name: "Flights", url: "FlightCollection?$top=10"),
            DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'"),
        ])
        let requests = try store.definingRequests()
        #expect(requests.map(\.name) == ["Flights", "Agencies"])
        #expect(requests[0].lastDownload == nil && requests[0].deltaLink == nil)
        #expect(requests[1].lastDownload == "then" && requests[1].deltaLink == "d1")
        #expect { try store.setDefiningRequests([DefiningRequest(name: "A", url: "X"), DefiningRequest(name: "A", url: "Y")]) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
        #expect { try store.setDefiningRequests([DefiningRequest(name: "", url: "X")]) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
        #expect(try store.definingRequests().count == 2)
        store.close()
    }

    @Test func aVersionOneStoreIsMigrated() throws {
        let folder = TemporaryFolder()
        let path = folder.file("v1.store")
        // A store as format version 1 wrote it.
        let db = try SQLiteConnection(path: path, create: true)
        try db.execute(StoreFormat.migrations[0])
        try db.execute("INSERT INTO ood_store_info VALUES ('format_version', '1'); PRAGMA application_id = \(StoreFormat.applicationID);")
        db.close()
        let store = try StoreFile(path: path)
        #expect(try store.formatVersion() == StoreFormat.currentVersion)
        #expect(try store.queuedRequests().isEmpty)
        #expect(try store.definingRequests().isEmpty)
        store.close()
    }
}
