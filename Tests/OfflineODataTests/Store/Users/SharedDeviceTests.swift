import Testing
@_spi(Tool) @testable import OfflineOData

/// A device that changes hands (docs/SHARED-DEVICE.md, issue 37 point 5), against the real V4
/// (odatapy) and V2 (mock-sap) test services behind a proxy that records each request: alice
/// works offline, the app hands the store to bob with each of the three choices, and the test
/// checks which credentials every request carried on the service and that bob never reads
/// alice's entities.
@Suite(.serialized) struct SharedDeviceTests {
    static let alice = (user: "alice", password: "a-secret")
    static let bob = (user: "bob", password: "b-secret")
    /// The agency alice creates offline, and the name she gives an existing one.
    static let aliceAgency = "99000001"
    static let aliceName = "Renamed by alice"

    struct Device {
        let backend: TestBackend
        let proxy: CredentialRecorder
        let folder = TemporaryFolder()
        var path: String { folder.file("shared-\(backend.kind).store") }

        func options(_ user: (user: String, password: String), path: String? = nil, downloads: Bool = true) -> ODataStore.Options {
            var options = ODataStore.Options(path: path ?? self.path, serviceRoot: proxy.serviceRoot)
            options.definingRequests = [FlightSample.usAgencies]
            options.mode = .offline
            options.user = user.user
            options.http = SharedDeviceTests.credentials(user)
            options.downloadsOnFirstOpen = downloads
            return options
        }

        func stop() {
            proxy.stop()
            backend.stop()
        }
    }

    static func credentials(_ user: (user: String, password: String)) -> HTTPOptions {
        var http = HTTPOptions()
        http.authentication = .basic(user: user.user, password: user.password)
        return http
    }

    static func start(_ kind: TestBackend.Kind) throws -> Device {
        let backend = try TestBackend.start(kind, size: "tiny")
        do {
            return Device(backend: backend, proxy: try CredentialRecorder(backend))
        } catch {
            backend.stop()
            throw error
        }
    }

    /// The entities of a V4 or V2 collection answer.
    static func entities(_ body: [UInt8]) throws -> [JSONValue] {
        let document = try JSONValue.parse(body)
        return document["value"]?.arrayValue ?? document["d"]?["results"]?.arrayValue ?? []
    }

    /// Alice's session: her store downloaded with her credentials, then two changes made offline
    /// (a new agency and a renamed one). Returns the renamed agency's key.
    static func aliceWorksOffline(on device: Device) throws -> String {
        let store = ODataStore.open(device.options(alice))
        defer { store.close() }
        _ = try store.waitUntilOpen()
        let first = try #require(try entities(store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$orderby=agencynum&$top=1")).body).first)
        let key = try #require(first["agencynum"]?.stringValue)
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(aliceAgency)))
        let update = device.backend.kind == .v4 ? "PATCH" : "MERGE"
        _ = try store.executeAndWait(ODataRequest(method: update, url: "TravelagencyCollection('\(key)')",
                                                  body: Array("{\"name\":\"\(aliceName)\"}".utf8)))
        #expect(try store.performAndWait(.requestQueue).count == 2)
        return key
    }

    /// The service's name of agency `key`, and whether alice's agency is there.
    static func served(_ device: Device, renamed key: String) throws -> (name: String?, hasAliceAgency: Bool) {
        let renamed = try JSONValue.parse(device.backend.get("TravelagencyCollection('\(key)')").body)
        let name = (renamed["d"] ?? renamed)["name"]?.stringValue
        return (name, try device.backend.get("TravelagencyCollection('\(aliceAgency)')").status == 200)
    }

    /// Every request since `mark` carried `user`'s credentials and no one else's.
    static func expectOnly(_ user: (user: String, password: String), since mark: Int, on device: Device,
                           _ comment: Comment) {
        let seen = device.proxy.requests(since: mark)
        #expect(!seen.isEmpty, comment)
        let expected = CredentialRecorder.basic(user.user, user.password)
        for request in seen {
            #expect(request.header("Authorization") == expected, "\(comment): \(request.method) \(request.target)")
        }
    }

    /// Bob's store right after the hand-over, before any download: nothing of alice's in it.
    /// Then bob downloads with his credentials only; his reads never show alice's unsent changes
    /// (`aliceOnService`: what of hers the service holds, after an upload first).
    static func bobStartsClean(on device: Device, renamed key: String, aliceOnService: Bool) throws {
        let store = ODataStore.open(device.options(bob, downloads: false))
        defer { store.close() }
        _ = try store.waitUntilOpen()
        #expect(try entities(store.executeAndWait(ODataRequest(url: "TravelagencyCollection")).body).isEmpty)
        #expect(try store.performAndWait(.requestQueue).isEmpty)
        #expect(try store.performAndWait(.errorArchive).isEmpty)
        #expect(try store.performAndWait(.syncLog()).isEmpty)
        let mark = device.proxy.requests.count
        _ = try store.performAndWait(.download())
        expectOnly(bob, since: mark, on: device, "bob's download")
        let agencies = try entities(store.executeAndWait(ODataRequest(url: "TravelagencyCollection")).body)
        #expect(!agencies.isEmpty)
        let keys = agencies.compactMap { $0["agencynum"]?.stringValue }
        #expect(keys.contains(aliceAgency) == aliceOnService)
        let renamed = agencies.first { $0["agencynum"]?.stringValue == key }
        #expect((renamed?["name"]?.stringValue == aliceName) == aliceOnService)
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func anotherUserIsRefusedUntilTheStoreIsHandedOver(kind: TestBackend.Kind) throws {
        let device = try Self.start(kind)
        defer { device.stop() }
        _ = try Self.aliceWorksOffline(on: device)
        let mark = device.proxy.requests.count
        for user: String? in ["bob", nil] {
            var options = device.options(Self.bob)
            options.user = user
            let store = ODataStore.open(options)
            defer { store.close() }
            let refused = try #require(throws: ODataError.self) { _ = try store.waitUntilOpen() }
            #expect(refused.code == .otherUser)
            #expect(refused.message.contains("'alice'") && refused.message.contains("2 change(s) pending"))
        }
        #expect(device.proxy.requests(since: mark).isEmpty)  // refused before anything went out
        #expect(try ODataStore.user(ofStoreAt: device.path) == "alice")
        // Alice herself opens it, her queue whole.
        let again = ODataStore.open(device.options(Self.alice, downloads: false))
        defer { again.close() }
        _ = try again.waitUntilOpen()
        #expect(try again.performAndWait(.requestQueue).count == 2)
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func uploadFirstSendsAlicesChangesWithHerCredentialsOnly(kind: TestBackend.Kind) throws {
        let device = try Self.start(kind)
        defer { device.stop() }
        let key = try Self.aliceWorksOffline(on: device)
        #expect(try Self.served(device, renamed: key).hasAliceAgency == false)

        let mark = device.proxy.requests.count
        let outcome = try ODataStore.handOver(path: device.path, to: "bob", choice: .uploadFirst(credentials: Self.credentials(Self.alice)))
        #expect(outcome.previousUser == "alice" && outcome.newUser == "bob")
        #expect(outcome.uploaded == 2 && outcome.discarded == 0)
        let sent = device.proxy.requests(since: mark)
        #expect(sent.contains { $0.method == "POST" } && sent.contains { $0.method == "PATCH" || $0.method == "MERGE" || $0.method == "PUT" })
        Self.expectOnly(Self.alice, since: mark, on: device, "alice's upload")
        let served = try Self.served(device, renamed: key)
        #expect(served.name == Self.aliceName && served.hasAliceAgency)

        #expect(try ODataStore.user(ofStoreAt: device.path) == "bob")
        try Self.bobStartsClean(on: device, renamed: key, aliceOnService: true)
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func discardRecordsAlicesChangesAndSendsNothingOfHers(kind: TestBackend.Kind) throws {
        let device = try Self.start(kind)
        defer { device.stop() }
        let key = try Self.aliceWorksOffline(on: device)

        let mark = device.proxy.requests.count
        let outcome = try ODataStore.handOver(path: device.path, to: "bob", choice: .discard)
        #expect(outcome.previousUser == "alice" && outcome.uploaded == 0 && outcome.discarded == 2)
        #expect(device.proxy.requests(since: mark).isEmpty)
        let served = try Self.served(device, renamed: key)
        #expect(served.name != Self.aliceName && !served.hasAliceAgency)

        try Self.bobStartsClean(on: device, renamed: key, aliceOnService: false)
        // The record of what was discarded: each of alice's changes once, readable until cleared.
        let store = ODataStore.open(device.options(Self.bob, downloads: false))
        defer { store.close() }
        let record = try store.performAndWait(.discardedChanges)
        #expect(record.count == 2)
        #expect(record.allSatisfy { $0.policy == "handOver:alice" && $0.outcome == .discarded })
        #expect(record.map(\.method) == [.post, kind == .v4 ? .patch : .merge])
        #expect(record.first?.local["agencynum"]?.stringValue == Self.aliceAgency)
        #expect(record.last?.local["name"]?.stringValue == Self.aliceName)
        #expect(try store.performAndWait(.clearDiscardedChanges) == 2)
        #expect(try store.performAndWait(.discardedChanges).isEmpty)
        // Nothing of alice's went out after all.
        #expect(!device.proxy.requests.contains { $0.header("Authorization") == CredentialRecorder.basic("alice", "a-secret") && $0.method != "GET" })
    }

    @Test(arguments: [TestBackend.Kind.v4, .v2])
    func keepApartGivesBobANewStoreAndLeavesAlicesWhole(kind: TestBackend.Kind) throws {
        let device = try Self.start(kind)
        defer { device.stop() }
        let key = try Self.aliceWorksOffline(on: device)

        let mark = device.proxy.requests.count
        let outcome = try ODataStore.handOver(path: device.path, to: "bob", choice: .keepApart(path: nil))
        let kept = try #require(outcome.keptAt)
        #expect(kept == device.path + ".alice")
        #expect(device.proxy.requests(since: mark).isEmpty)
        #expect(try ODataStore.user(ofStoreAt: kept) == "alice")
        #expect(try ODataStore.user(ofStoreAt: device.path) == "bob")

        try Self.bobStartsClean(on: device, renamed: key, aliceOnService: false)

        // Bob cannot open alice's kept store; alice can, with her queue, and uploads it with her credentials.
        let refused = ODataStore.open(device.options(Self.bob, path: kept, downloads: false))
        #expect(throws: ODataError.self) { _ = try refused.waitUntilOpen() }
        refused.close()
        let alices = ODataStore.open(device.options(Self.alice, path: kept, downloads: false))
        defer { alices.close() }
        _ = try alices.waitUntilOpen()
        #expect(try alices.performAndWait(.requestQueue).count == 2)
        let uploadMark = device.proxy.requests.count
        #expect(try alices.performAndWait(.upload()).sent == 2)
        Self.expectOnly(Self.alice, since: uploadMark, on: device, "alice's later upload")
        let served = try Self.served(device, renamed: key)
        #expect(served.name == Self.aliceName && served.hasAliceAgency)
    }

    @Test func aHandOverOfAnEncryptedStoreGivesItTheNewUsersKey() throws {
        let device = try Self.start(.v4)
        defer { device.stop() }
        let aliceKey = StoreKey.raw(Array(repeating: 0xA1, count: 32))
        let bobKey = StoreKey.raw(Array(repeating: 0xB0, count: 32))
        var options = device.options(Self.alice)
        options.key = aliceKey
        let store = ODataStore.open(options)
        _ = try store.waitUntilOpen()
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(Self.aliceAgency)))
        store.close()

        #expect { try ODataStore.handOver(path: device.path, key: aliceKey, to: "bob", choice: .discard) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
        #expect(try ODataStore.handOver(path: device.path, key: aliceKey, to: "bob", newKey: bobKey, choice: .discard).discarded == 1)
        #expect { try LocalStore.open(path: device.path, key: aliceKey) } throws: { ($0 as? ODataError)?.code == .key }
        var bobs = device.options(Self.bob, downloads: false)
        bobs.key = bobKey
        let bobStore = ODataStore.open(bobs)
        defer { bobStore.close() }
        _ = try bobStore.waitUntilOpen()
        #expect(try Self.entities(bobStore.executeAndWait(ODataRequest(url: "TravelagencyCollection")).body).isEmpty)
    }

    /// An upload first that cannot reach the service: the hand-over fails, nothing of alice's is
    /// dropped and the store stays hers; a hand-over killed between its wipe and its rekey is
    /// finished by the same call again.
    @Test func aFailedUploadFirstLeavesTheStoreToThePreviousUser() throws {
        let folder = TemporaryFolder()
        let path = folder.file("unreachable.store")
        var options = ODataStore.Options(path: path, serviceRoot: "http://127.0.0.1:9/")
        options.metadata = FlightSample.v4Metadata
        options.mode = .offline
        options.user = "alice"
        options.downloadsOnFirstOpen = false
        let store = ODataStore.open(options)
        _ = try store.waitUntilOpen()
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(Self.aliceAgency)))
        store.close()

        let failed = try #require(throws: ODataError.self) {
            try ODataStore.handOver(path: path, to: "bob", choice: .uploadFirst(credentials: Self.credentials(Self.alice)))
        }
        #expect(failed.code == .network)
        #expect(try ODataStore.user(ofStoreAt: path) == "alice")
        let again = ODataStore.open(options)
        defer { again.close() }
        _ = try again.waitUntilOpen()
        #expect(try again.performAndWait(.requestQueue).count == 1)
        #expect(try Self.entities(again.executeAndWait(ODataRequest(url: "TravelagencyCollection")).body).count == 1)
    }

    @Test func aHandOverInterruptedBeforeItsRekeyIsFinishedByTheSameCall() throws {
        let folder = TemporaryFolder()
        let path = folder.file("rekey.store")
        let aliceKey = StoreKey.raw(Array(repeating: 0xA2, count: 32))
        let bobKey = StoreKey.raw(Array(repeating: 0xB2, count: 32))
        var options = ODataStore.Options(path: path)
        options.metadata = FlightSample.v4Metadata
        options.user = "alice"
        options.key = aliceKey
        let store = ODataStore.open(options)
        _ = try store.waitUntilOpen()
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(Self.aliceAgency)))
        store.close()
        // The wipe committed, the rekey not done: what a kill between the two leaves.
        #expect(try ODataStore.handOver(path: path, key: aliceKey, to: "bob", newKey: aliceKey, choice: .discard).discarded == 1)
        #expect(try ODataStore.handOver(path: path, key: aliceKey, to: "bob", newKey: bobKey, choice: .discard).discarded == 0)
        #expect { try LocalStore.open(path: path, key: aliceKey) } throws: { ($0 as? ODataError)?.code == .key }
        #expect(try ODataStore.user(ofStoreAt: path, key: bobKey) == "bob")
    }

    @Test func userNamesAreChecked() throws {
        #expect(throws: ODataError.self) { try StoreUserBinding.check("") }
        #expect(throws: ODataError.self) { try StoreUserBinding.check("a\nb") }
        #expect(throws: ODataError.self) { try StoreUserBinding.check(String(repeating: "x", count: 257)) }
        try StoreUserBinding.check("anna.müller@example.com")
        #expect(StoreHandOver.fileNamePart("a/b c") == "a_b_c")
    }
}
