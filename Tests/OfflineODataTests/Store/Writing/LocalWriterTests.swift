import Testing
@_spi(Tool) @testable import OfflineOData

/// Local writes on a store of the flight sample (V4), checked in its tables and its queue.
@Suite struct LocalWriterTests {
    static let metadata: String = {
        var path = #filePath
        for _ in 0..<5 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return readFile(path + "/Examples/FlightSample/metadata-v4.xml").map { String(decoding: $0, as: UTF8.self) } ?? ""
    }()

    final class Fixture {
        let folder = TemporaryFolder()
        let store: LocalStore
        init() throws { store = try LocalStore.create(path: folder.file("w.store"), metadata: LocalWriterTests.metadata) }
        deinit { store.close() }

        func write(_ method: String, _ url: String, _ body: String? = nil) throws(ODataError) -> WriteOutcome {
            try store.write(method: method, url: url, body: body.map { Array($0.utf8) })
        }

        /// `(value of column, _ood_change)` of the agency with this key, if stored.
        func agency(_ key: String, _ column: String) throws -> (String?, String?)? {
            try store.file.withConnection { db throws(ODataError) -> (String?, String?)? in
                let statement = try db.prepare("SELECT \(quoteIdentifier(column)), \"_ood_change\" FROM \"es/TravelagencyCollection\" WHERE agencynum = ?1")
                try statement.bind([.text(key)])
                guard try statement.step() else { return nil }
                return (statement.text(at: 0), statement.text(at: 1))
            }
        }

        func queue() throws -> [QueuedRequest] { try store.file.queuedRequests() }

        /// Marks an agency as downloaded from the service (no local change, an ETag).
        func download(_ key: String, name: String) throws {
            try store.file.withConnection { db throws(ODataError) in
                try db.prepare("INSERT INTO \"es/TravelagencyCollection\" (agencynum, name, \"_ood_etag\") VALUES (?1, ?2, 'W/\"1\"')")
                    .run([.text(key), .text(name)])
            }
        }
    }

    @Test func aCreateIsStoredAsLocalAndQueuedAsSent() throws {
        let f = try Fixture()
        let body = #"{"agencynum":"00000099","name":"Fly & Co","city":"Rome","creditlimit":"1500.50"}"#
        let outcome = try f.write("POST", "TravelagencyCollection", body)
        #expect(outcome.status == 201 && outcome.entitySet == "TravelagencyCollection")
        #expect(try f.agency("00000099", "name")! == ("Fly & Co", "created"))
        #expect(try f.agency("00000099", "creditlimit")?.0 == "1500.5")
        let queue = try f.queue()
        #expect(queue.count == 1)
        #expect(queue.first?.method == .post && queue.first?.url == "TravelagencyCollection")
        #expect(queue.first?.body == body && queue.first?.entityID == outcome.entityID)
    }

    @Test func anUpdateChangesOnlyTheGivenPropertiesAndCarriesTheETag() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Old name")
        let outcome = try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"city":"Beijing"}"#)
        #expect(outcome.status == 204)
        #expect(try f.agency("00000001", "city")! == ("Beijing", "updated"))
        #expect(try f.agency("00000001", "name")?.0 == "Old name")
        #expect(try f.queue().last?.etag == #"W/"1""#)
        #expect(try f.queue().last?.url == "TravelagencyCollection('00000001')")
    }

    @Test func putReplacesTheEntity() throws {
        let f = try Fixture()
        try f.download("00000001", name: "Old name")
        _ = try f.write("PUT", "TravelagencyCollection('00000001')", #"{"agencynum":"00000001","city":"Rome"}"#)
        #expect(try f.agency("00000001", "name")?.0 == nil)
        #expect(try f.agency("00000001", "city")?.0 == "Rome")
    }

    @Test func aDeleteHidesTheEntityUntilUpload() throws {
        let f = try Fixture()
        try f.download("00000001", name: "A")
        _ = try f.write("DELETE", "TravelagencyCollection('00000001')")
        #expect(try f.agency("00000001", "name")?.1 == "deleted")
        #expect { try f.write("DELETE", "TravelagencyCollection('00000001')") } throws: { ($0 as? ODataError)?.code == .notFound }
        #expect { try f.write("PATCH", "TravelagencyCollection('00000001')", "{}") } throws: { ($0 as? ODataError)?.code == .notFound }
        #expect(try f.queue().map(\.method.rawValue) == ["DELETE"])
    }

    @Test func createUpdateAndDeleteOfOneLocalEntityQueueInOrder() throws {
        let f = try Fixture()
        _ = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"L1","name":"Local"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('L1')", #"{"name":"Renamed"}"#)
        #expect(try f.agency("L1", "name")! == ("Renamed", "created"))
        _ = try f.write("DELETE", "TravelagencyCollection('L1')")
        let queue = try f.queue()
        #expect(queue.map(\.method.rawValue) == ["POST", "PATCH", "DELETE"])
        #expect(Set(queue.map(\.entityID)).count == 1)
    }

    @Test(arguments: [
        (#"{"agencynum":"00000001","nonsense":1}"#, ODataError.Code.semantic, "nonsense"),
        (#"{"agencynum":"00000001","creditlimit":"lots"}"#, .semantic, "creditlimit"),
        (#"{"agencynum":"00000001","country":"USAA"}"#, .constraint, "limited to 3"),
        (#"{"agencynum":null,"name":"x"}"#, .constraint, "agencynum"),
        (#"[1,2]"#, .syntax, "JSON object"),
        (#"{"agencynum":"#, .syntax, ""),
    ])
    func invalidCreatesChangeNothing(body: String, code: ODataError.Code, fragment: String) throws {
        let f = try Fixture()
        #expect { try f.write("POST", "TravelagencyCollection", body) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == code && (fragment.isEmpty || error.message.contains(fragment))
        }
        #expect(try f.queue().isEmpty)
        #expect(try f.agency("00000001", "name") == nil)
    }

    @Test func duplicateKeysKeyChangesAndWrongTargetsAreRefused() throws {
        let f = try Fixture()
        try f.download("00000001", name: "A")
        #expect { try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000001"}"#) } throws: {
            ($0 as? ODataError)?.code == .constraint && ($0 as? ODataError)?.message.contains("already exists") == true
        }
        #expect { try f.write("PATCH", "TravelagencyCollection('00000001')", #"{"agencynum":"00000002"}"#) } throws: {
            ($0 as? ODataError)?.message.contains("cannot be changed") == true
        }
        #expect { try f.write("POST", "GetAgencyDetails(agencynum='00000001')", "{}") } throws: {
            ($0 as? ODataError)?.code == .unsupported
        }
        #expect { try f.write("MERGE", "TravelagencyCollection('00000001')", "{}") } throws: {
            ($0 as? ODataError)?.code == .semantic
        }
        #expect { try f.write("GET", "TravelagencyCollection") } throws: { ($0 as? ODataError)?.code == .misuse }
        #expect { try f.write("PATCH", "TravelagencyCollection", "{}") } throws: { ($0 as? ODataError)?.code == .semantic }
        #expect { try f.write("PATCH", "Nowhere('1')", "{}") } throws: { ($0 as? ODataError)?.code == .semantic }
        #expect(try f.queue().isEmpty)
    }
}
