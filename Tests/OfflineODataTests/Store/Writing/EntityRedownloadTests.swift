import Testing
@_spi(Tool) @testable import OfflineOData

/// Re-downloading one entity from the service (issue 19, point 5) against the real V4 service.
@Suite(.serialized) struct EntityRedownloadTests {
    /// An offline store on `backend` with the US agencies downloaded.
    func downloadedStore(_ backend: TestBackend, in folder: TemporaryFolder) throws -> LocalStore {
        let store = try LocalStore.create(path: folder.file("redownload.store"), metadata: FlightSample.v4Metadata,
                                            definingRequests: [FlightSample.usAgencies], serviceRoot: backend.serviceRoot)
        _ = try store.download()
        return store
    }

    /// The row of the agency `key`: its local id, name, ETag, change and error marks; nil when gone.
    func row(_ store: LocalStore, _ key: String) throws -> (id: Int64, name: String?, etag: String?, change: String?, error: Int64)? {
        try store.file.withConnection { db throws(ODataError) in
            let select = try db.prepare("""
                SELECT "_ood_id", "name", "_ood_etag", "_ood_change", "_ood_error" FROM "es/TravelagencyCollection" WHERE "agencynum" = ?1
                """)
            try select.bind([.text(key)])
            guard try select.step() else { return nil }
            return (select.int(at: 0), select.text(at: 1), select.text(at: 2), select.text(at: 3), select.int(at: 4))
        }
    }

    /// The agency as the service has it now: its name and ETag.
    func served(_ backend: TestBackend, _ key: String) throws -> (name: String?, etag: String?) {
        let answer = try backend.get("TravelagencyCollection('\(key)')")
        #expect(answer.status == 200)
        let entity = try JSONValue.parse(answer.body)
        return (entity["name"]?.stringValue, entity["@odata.etag"]?.stringValue)
    }

    /// Changes the agency on the service behind the store's back.
    func changeOnService(_ backend: TestBackend, _ key: String, name: String) throws {
        let answer = try backend.send(HTTPRequest(method: "PATCH", url: backend.url("TravelagencyCollection('\(key)')"),
                                                  headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                  body: Array(#"{"name":"\#(name)"}"#.utf8)))
        #expect(answer.status < 300)
    }

    func firstAgency(_ store: LocalStore) throws -> String {
        let body = try store.execute(method: "GET", url: "TravelagencyCollection?$orderby=agencynum&$top=1&$select=agencynum").body
        return try #require(try JSONValue.parse(body)["value"]?[0]?["agencynum"]?.stringValue)
    }

    @Test func anEntityChangedOnTheServiceTakesTheServicesValuesAndETag() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try downloadedStore(backend, in: folder)
        defer { store.close() }
        let key = try firstAgency(store)
        let before = try #require(try row(store, key))
        try changeOnService(backend, key, name: "Changed Online")
        let now = try served(backend, key)
        #expect(now.etag != nil && now.etag != before.etag)

        let outcome = try store.redownloadEntity(url: "TravelagencyCollection('\(key)')")
        #expect(outcome == RedownloadOutcome(entitySet: "TravelagencyCollection", action: .updated))
        let after = try #require(try row(store, key))
        #expect(after.id == before.id)  // the same row: links and memberships stay
        #expect(after.name == "Changed Online" && after.etag == now.etag)
        #expect(after.change == nil && after.error == 0)
        // Still in its defining request: a read of it shows the new name.
        let read = try store.execute(method: "GET", url: "TravelagencyCollection?$filter=country eq 'US' and agencynum eq '\(key)'")
        #expect(String(decoding: read.body, as: UTF8.self).contains("Changed Online"))
        // The new ETag is the one a later change is sent with: the service takes it.
        _ = try store.write(method: "PATCH", url: "TravelagencyCollection('\(key)')", body: Array(#"{"city":"Redownload City"}"#.utf8))
        #expect(try store.upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
    }

    @Test func afterARefusedChangeIsDiscardedTheEntityIsRedownloaded() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try downloadedStore(backend, in: folder)
        defer { store.close() }
        let key = try firstAgency(store)
        let url = "TravelagencyCollection('\(key)')"
        let downloaded = try #require(try row(store, key))
        _ = try store.write(method: "PATCH", url: url, body: Array(#"{"name":"Changed Offline"}"#.utf8))
        try changeOnService(backend, key, name: "Changed Online")

        // Queued: refused, and the change stays.
        let queued = #expect(throws: ODataError.self) { try store.redownloadEntity(url: url) }
        #expect(queued?.code == .misuse)
        #expect(queued?.message.contains("has queued or archived requests: upload, discard or undo them first") == true)
        #expect(try row(store, key)?.name == "Changed Offline" && row(store, key)?.change == "updated")
        #expect(try store.file.queuedRequests().count == 1)

        // Archived (the service's ETag moved on: 412): refused too.
        #expect(try store.upload().archived == 1)
        let archived = #expect(throws: ODataError.self) { try store.redownloadEntity(url: url) }
        #expect(archived?.code == .misuse)
        #expect(try row(store, key)?.name == "Changed Offline" && row(store, key)?.error == 1)

        // Discarded: the store has what it last downloaded; a re-download brings the service's version.
        #expect(try store.deleteArchivedRequests() == 1)
        #expect(try row(store, key)?.name == downloaded.name)
        #expect(try store.redownloadEntity(url: url).action == .updated)
        let after = try #require(try row(store, key))
        let serviceETag = try served(backend, key).etag
        #expect(after.name == "Changed Online" && after.etag == serviceETag && after.error == 0)
    }

    @Test func anEntityDeletedOnTheServiceLeavesTheStore() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try downloadedStore(backend, in: folder)
        defer { store.close() }
        let url = "TravelagencyCollection('99000051')"
        _ = try store.write(method: "POST", url: "TravelagencyCollection",
                            body: Array(#"{"agencynum":"99000051","name":"Short-lived","country":"US"}"#.utf8))
        #expect(try store.upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
        let deleted = try backend.send(HTTPRequest(method: "DELETE", url: backend.url(url), headers: [HTTPHeader("If-Match", "*")]))
        #expect(deleted.status < 300)

        #expect(try store.redownloadEntity(url: url) == RedownloadOutcome(entitySet: "TravelagencyCollection", action: .removed))
        #expect(try row(store, "99000051") == nil)
        let read = #expect(throws: ODataError.self) { try store.execute(method: "GET", url: url) }
        #expect(read?.code == .notFound)
        // Gone from the store: a second re-download does not find it.
        let again = #expect(throws: ODataError.self) { try store.redownloadEntity(url: url) }
        #expect(again?.code == .notFound)
    }

    @Test func aURLThatIsNotOneEntityByKeyIsRefused() throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try downloadedStore(backend, in: folder)
        defer { store.close() }
        let key = try firstAgency(store)
        for url in ["TravelagencyCollection", "TravelagencyCollection('\(key)')/AgencyBookings", "TravelagencyCollection/$count"] {
            let error = #expect(throws: ODataError.self) { try store.redownloadEntity(url: url) }
            #expect(error?.code == .semantic, "\(url)")
        }
        let semantic = #expect(throws: ODataError.self) { try store.redownloadEntity(url: "TravelagencyCollection") }
        #expect(semantic?.message.contains("a re-download addresses one entity by its key") == true)
        let unknown = #expect(throws: ODataError.self) { try store.redownloadEntity(url: "TravelagencyCollection('00999999')") }
        #expect(unknown?.code == .notFound)
    }

    @Test func theStoreAPIRunsItAndAnnouncesTheChange() async throws {
        let backend = try TestBackend.start(.v4)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        var options = ODataStore.Options(path: folder.file("api.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [FlightSample.usAgencies]
        let store = ODataStore.open(options)
        defer { store.close() }
        let first = try #require(try JSONValue.parse(await store.get("TravelagencyCollection?$orderby=agencynum&$top=1").body)["value"]?[0])
        let key = try #require(first["agencynum"]?.stringValue)
        try changeOnService(backend, key, name: "Changed For The API")
        let recorder = EventRecorder()
        store.subscribe(recorder.record)

        let outcome = try await store.perform(.redownloadEntity(url: "TravelagencyCollection('\(key)')"))
        #expect(outcome.action == .updated && outcome.entitySet == "TravelagencyCollection")
        let read = try await store.get("TravelagencyCollection('\(key)')")
        #expect(String(decoding: read.body, as: UTF8.self).contains("Changed For The API"))
        #expect(recorder.wait(seconds: 10) { events in
            events.contains { if case .entitySetsChanged(let sets) = $0 { sets.contains("TravelagencyCollection") } else { false } }
        })
    }
}
