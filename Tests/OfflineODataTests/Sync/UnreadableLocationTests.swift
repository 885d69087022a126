import Testing
@_spi(Tool) @testable import OfflineOData

/// A create whose key the service assigns, answered without the entity and with a `Location` the
/// store cannot read a key from (it does not parse, or names another set), against the real V4
/// service: the answer is no proof, so the create stays in doubt and is settled without a second
/// `POST`, and the entity made offline stays in the store. (The store used to record such a create
/// as applied, keeping its provisional key while the service had the entity under another.)
@Suite(.serialized) struct UnreadableLocationTests {
    private func hostile(_ backend: TestBackend, _ json: String) throws {
        _ = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile", body: Array(json.utf8)))
    }

    private func agencies(named name: String, on backend: TestBackend) throws -> Int {
        let (status, body) = try backend.get("TravelagencyCollection?$filter=name eq '\(name)'")
        #expect(status == 200)
        guard case .array(let entries)? = try JSONValue.parse(body)["value"] else { return -1 }
        return entries.count
    }

    @Test(arguments: ["TravelagencyCollection('unterminated)", "TravelagencyCollection(agencynum=)",
                      "TravelagencyCollection(nokey='1')", "FlightCollection(carrid='AA')"])
    func aCreateNamedByALocationWithoutAKeyStaysInDoubtAndIsNotSentTwice(location: String) throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("location.store"), metadata: FlightSample.v4Metadata,
                                          definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        defer { store.close() }
        _ = try store.download()
        let name = "Unreadable Location"
        let created = try store.write(method: "POST", url: "TravelagencyCollection",
                                      body: Array(#"{"name":"\#(name)","city":"Reno","country":"US"}"#.utf8))
        let provisional = try #require(try JSONValue.parse(created.body)["agencynum"]?.stringValue)

        try hostile(backend, #"{"create_location": "\#(backend.serviceRoot)\#(location)"}"#)
        let stopped = #expect(throws: ODataError.self) { try store.upload() }
        #expect(stopped?.message.contains("gives no key of TravelagencyCollection") == true, "\(stopped?.message ?? "")")
        #expect(try store.file.queuedRequests().map(\.state) == [.inDoubt])
        #expect(try agencies(named: name, on: backend) == 1)
        try hostile(backend, "{}")

        // The service assigns the key and the set has no alternate key to find it by: the create
        // waits for the user's decision instead of being sent again.
        let outcome = try store.upload()
        #expect(outcome.sent == 0 && outcome.archived == 1)
        #expect(try agencies(named: name, on: backend) == 1)
        let archived = try store.file.errorArchive()
        #expect(archived.map(\.kind) == [.inDoubt])
        #expect(try store.file.queuedRequests().isEmpty)
        let local = try store.execute(method: "GET", url: "TravelagencyCollection('\(provisional)')")
        #expect(local.status == 200)
        #expect(try JSONValue.parse(local.body)["name"]?.stringValue == name)
    }
}
