import Testing
@_spi(Tool) @testable import OfflineOData

/// The upload against a scripted service: order, headers, CSRF, answers recorded, faults.
@Suite struct UploaderTests {
    final class Fixture {
        let folder = TemporaryFolder()
        let store: LocalStore
        let server: TestHTTPServer

        init(_ handler: @escaping @Sendable (ReceivedRequest) -> TestHTTPBehaviour) throws {
            store = try LocalStore.create(path: folder.file("u.store"), metadata: LocalWriterTests.metadata)
            server = try TestHTTPServer(handler: handler)
        }

        deinit {
            server.stop()
            store.close()
        }

        /// Sends the queue as queued: these tests are about each request's answer; the queue's
        /// compaction has its own (QueueCompactionTests, and `uploadCompactsTheQueueFirst`).
        func uploader(compactsQueue: Bool = false) throws -> Uploader {
            Uploader(transport: try HTTPTransport(), serviceRoot: server.baseURL + "/svc/", dialect: .v4,
                     file: store.file, schema: store.schema, compactsQueue: compactsQueue)
        }

        func seed(_ key: String) throws {
            try store.file.withConnection { db throws(ODataError) in
                try db.prepare("INSERT INTO \"es/TravelagencyCollection\" (agencynum, name, \"_ood_etag\") VALUES (?1, 'A', 'W/\"1\"')")
                    .run([.text(key)])
            }
        }

        func column(_ key: String, _ column: String) throws -> String? {
            try store.file.withConnection { db throws(ODataError) in
                try db.scalarText("SELECT \(quoteIdentifier(column)) FROM \"es/TravelagencyCollection\" WHERE agencynum = ?1", [.text(key)])
            }
        }

        func exists(_ key: String) throws -> Bool {
            try store.file.withConnection { db throws(ODataError) in
                try db.scalarInt("SELECT count(*) FROM \"es/TravelagencyCollection\" WHERE agencynum = ?1", [.text(key)]) == 1
            }
        }
    }

    /// A service with CSRF protection: token "t1", writes answered with new ETags.
    static func service(_ request: ReceivedRequest) -> TestHTTPBehaviour {
        if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "{}", headers: [("X-CSRF-Token", "t1")]) }
        guard request.header("X-CSRF-Token") == "t1" else { return .text(403, "", headers: [("X-CSRF-Token", "Required")]) }
        switch request.method {
        case "POST": return .text(201, #"{"agencynum":"N1","@odata.etag":"W/\"7\""}"#)
        case "PATCH": return .text(204, "", headers: [("ETag", #"W/"2""#)])
        default: return .text(204, "")
        }
    }

    @Test func sendsTheQueueInOrderWithTokenAndIfMatchAndRecordsTheAnswers() throws {
        let f = try Fixture(Self.service)
        try f.seed("00000001")
        try f.seed("00000002")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000002')")
        var reports: [UploadProgress] = []
        let outcome = try f.uploader().upload { reports.append($0); return true }
        #expect(outcome.withoutBytes == UploadOutcome(sent: 3, archived: 0))
        #expect(reports.map(\.sent) == [1, 2, 3])
        let requests = f.server.requests
        #expect(requests.map(\.method) == ["GET", "POST", "PATCH", "DELETE"])
        #expect(requests[1].target == "/svc/TravelagencyCollection" && requests[1].header("If-Match") == nil)
        #expect(requests[2].target == "/svc/TravelagencyCollection('00000001')" && requests[2].header("If-Match") == #"W/"1""#)
        #expect(requests.dropFirst().allSatisfy { $0.header("X-CSRF-Token") == "t1" })
        #expect(String(decoding: requests[2].body, as: UTF8.self) == #"{"city":"Rome"}"#)
        #expect(try f.store.file.queuedRequests().isEmpty)
        #expect(try f.column("N1", "_ood_etag") == #"W/"7""# && f.column("N1", "_ood_change") == nil)
        #expect(try f.column("00000001", "_ood_etag") == #"W/"2""# && f.column("00000001", "_ood_change") == nil)
        #expect(try !f.exists("00000002"))
        // The bytes on the wire: the bodies the service got, and the bodies it answered (the
        // token fetch's "{}", the create's entity; the 204s have none), growing request by request.
        #expect(outcome.bytesSent == requests.reduce(0) { $0 + $1.body.count } && outcome.bytesSent > 0)
        #expect(outcome.bytesReceived == 2 + #"{"agencynum":"N1","@odata.etag":"W/\"7\""}"#.utf8.count)
        #expect(reports.map(\.bytesSent) == [requests[1].body.count, requests[1].body.count + requests[2].body.count,
                                              outcome.bytesSent])
        #expect(reports.last?.bytesReceived == outcome.bytesReceived)
    }

    /// A create and a PATCH of the new entity; a PATCH and a DELETE of a synced one.
    static func queueCreateAndChanges(_ f: Fixture) throws {
        try f.seed("00000001")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('N1')", body: Array(#"{"city":"Oslo"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000001')")
    }

    @Test func laterRequestsOnAnEntityCarryTheETagTheServiceGaveTheEarlierOne() throws {
        let f = try Fixture(Self.service)
        try Self.queueCreateAndChanges(f)
        #expect(try f.uploader().upload().withoutBytes == UploadOutcome(sent: 4, archived: 0))
        let sent = f.server.requests.dropFirst().map { "\($0.method) \($0.header("If-Match") ?? "-")" }
        // The created entity's PATCH carries the POST's answer's ETag; the DELETE the PATCH's.
        #expect(sent == ["POST -", #"PATCH W/"7""#, #"PATCH W/"1""#, #"DELETE W/"2""#])
    }

    @Test func uploadCompactsTheQueueFirst() throws {
        let f = try Fixture(Self.service)
        try Self.queueCreateAndChanges(f)
        var reports: [UploadProgress] = []
        let outcome = try f.uploader(compactsQueue: true).upload { reports.append($0); return true }
        #expect(outcome.sent == 2 && outcome.archived == 0 && outcome.compacted == 2)
        #expect(reports.last?.total == 2, "progress counts the compacted queue")
        let sent = f.server.requests.dropFirst().map { "\($0.method) \($0.header("If-Match") ?? "-")" }
        #expect(sent == ["POST -", #"DELETE W/"1""#])
        #expect(String(decoding: f.server.requests[1].body, as: UTF8.self) == #"{"agencynum":"N1","name":"New","city":"Oslo"}"#)
        #expect(try f.store.file.queuedRequests().isEmpty && !f.exists("00000001"))
    }

    @Test func anExpiredTokenIsFetchedAgainOnce() throws {
        let fetches = Counter()
        let f = try Fixture { request in
            if request.header("X-CSRF-Token") == "Fetch" {
                return .text(200, "", headers: [("X-CSRF-Token", "t\(fetches.increment())")])
            }
            // Only the second token is valid: the first has expired.
            return request.header("X-CSRF-Token") == "t2" ? .text(204, "") : .text(403, "", headers: [("X-CSRF-Token", "Required")])
        }
        try f.seed("00000001")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        #expect(try f.uploader().upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
        #expect(f.server.requests.map { $0.header("X-CSRF-Token") ?? "" } == ["Fetch", "t1", "Fetch", "t2"])
    }

    @Test func aRefusedRequestIsArchivedWithItsFollowersAndTheRestGoesOn() throws {
        let f = try Fixture { request in
            if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "") }
            if request.target.contains("00000001") {
                return .text(412, #"{"error":{"code":"412","message":"The entity was changed by someone else"}}"#)
            }
            return .text(204, "")
        }
        try f.seed("00000001")
        try f.seed("00000002")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000002')", body: Array(#"{"city":"Oslo"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000001')")
        #expect(try f.uploader().upload().withoutBytes == UploadOutcome(sent: 1, archived: 2))
        let archive = try f.store.file.errorArchive()
        #expect(archive.map(\.request.method.rawValue) == ["PATCH", "DELETE"])
        #expect(archive.first?.httpStatus == 412 && archive.first?.message.contains("changed by someone else") == true)
        #expect(archive.last?.httpStatus == nil && archive.last?.message.contains("earlier request") == true)
        #expect(try f.column("00000001", "_ood_error") == "1")
        #expect(try f.column("00000002", "_ood_change") == nil)
        #expect(f.server.requests.filter { $0.method == "DELETE" }.isEmpty)

        // Discarding the refused request discards the one built on it too, and the entity is back
        // to what the service sent: no change, no error mark.
        let ids = archive.map(\.request.id)
        #expect(try f.store.deleteArchivedRequests(id: ids[0]) == 2)
        #expect(try f.column("00000001", "_ood_error") == "0")
        #expect(try f.column("00000001", "_ood_change") == nil)
        #expect { try f.store.deleteArchivedRequests(id: ids[1]) } throws: { ($0 as? ODataError)?.code == .notFound }
        #expect(try f.store.deleteArchivedRequests() == 0)
        #expect(try f.store.file.errorArchive().isEmpty)
    }

    @Test func aServerErrorStopsTheUploadWithTheQueueIntact() throws {
        let f = try Fixture { request in
            request.header("X-CSRF-Token") == "Fetch" ? .text(200, "")
                : .text(500, #"{"error":{"code":"X","message":"database is down"}}"#)
        }
        try f.seed("00000001")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000001')")
        #expect { try f.uploader().upload() } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .http && error.httpStatus == 500 && error.message.contains("database is down")
                && error.message.contains("2 requests stay queued")
        }
        #expect(try f.store.file.queuedRequests().count == 2)
        #expect(try f.column("00000001", "_ood_change") == "deleted")
    }

    @Test func aNetworkFailureStopsTheUploadWithTheQueueIntact() throws {
        let f = try Fixture { _ in .close }
        try f.seed("00000001")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        #expect { try f.uploader().upload() } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .network && error.message.hasSuffix("; the upload stopped and 1 requests stay queued for a later upload")
        }
        #expect(try f.store.file.queuedRequests().count == 1)
    }
}

/// A thread-safe counter for scripted services.
final class Counter: @unchecked Sendable {
    private let lock = NSLockLike()
    private var value = 0
    func increment() -> Int { lock.locked { value += 1; return value } }
}
