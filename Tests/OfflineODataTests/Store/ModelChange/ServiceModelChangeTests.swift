import Testing
@_spi(Tool) @testable import OfflineOData

/// The service's `$metadata` changes while changes are queued (issue 34), against the real V4 and
/// V2 services: the test stops the service and starts it again on the same port with an edited
/// copy of the flight sample's model, between two downloads.
@Suite(.serialized) struct ServiceModelChangeTests {
    static let kinds: [TestBackend.Kind] = [.v4, .v2]

    /// The sample's model for `kind` with `edits` (text, replacement) applied, each to its first
    /// occurrence, written to `folder`.
    static func variant(_ kind: TestBackend.Kind, _ edits: [(String, String)], in folder: TemporaryFolder) throws -> String {
        var text = kind == .v4 ? FlightSample.v4Metadata : FlightSample.v2Metadata
        for (old, new) in edits {
            text = try #require(Self.replacingFirst(old, with: new, in: text), "the sample has no '\(old)'")
        }
        let path = folder.file("metadata-\(kind.rawValue)-changed.xml")
        folder.write("metadata-\(kind.rawValue)-changed.xml", Array(text.utf8))
        return path
    }

    /// `text` with the first `old` replaced by `new`; nil when `old` is not in it.
    static func replacingFirst(_ old: String, with new: String, in text: String) -> String? {
        let bytes = Array(text.utf8), needle = Array(old.utf8)
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return String(decoding: bytes[..<start] + Array(new.utf8) + bytes[(start + needle.count)...], as: UTF8.self)
        }
        return nil
    }

    /// One test's world: the service of `kind` and a store of its agencies, downloaded; the
    /// service can be restarted on its port with an edited model (``swapModel(_:)``).
    final class Scenario {
        let kind: TestBackend.Kind
        var backend: TestBackend
        let folder = TemporaryFolder()
        var options: ODataStore.Options
        var store: ODataStore

        init(_ kind: TestBackend.Kind, definingRequests: [DefiningRequest] = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection")]) throws {
            self.kind = kind
            backend = try TestBackend.start(kind, csrf: false)
            options = ODataStore.Options(path: folder.file("model-\(kind.rawValue).store"), serviceRoot: backend.serviceRoot)
            options.metadata = kind == .v4 ? FlightSample.v4Metadata : FlightSample.v2Metadata
            options.definingRequests = definingRequests
            store = ODataStore.open(options)
            _ = try store.performAndWait(.status)
        }

        /// The method of a partial update in the service's dialect.
        var merge: String { kind == .v4 ? "PATCH" : "MERGE" }

        /// The `url` property's element in the sample's model (what several tests remove).
        var urlElement: String {
            kind == .v4 ? #"<Property Name="url" Type="Edm.String" MaxLength="255"/>"#
                : #"<Property Name="url" Type="Edm.String" MaxLength="255" sap:label="Web Site"/>"#
        }

        /// The service again, on the same port, serving the sample's model with `edits` applied.
        func swapModel(_ edits: [(String, String)]) throws {
            let metadata = try ServiceModelChangeTests.variant(kind, edits, in: folder)
            let port = backend.port
            backend.stop()
            backend = try TestBackend.start(kind, csrf: false, metadata: metadata, port: port)
        }

        /// The store opened again with `definingRequests`.
        func reopen(definingRequests: [DefiningRequest]) {
            store.close()
            options.definingRequests = definingRequests
            options.serviceRoot = backend.serviceRoot
            store = ODataStore.open(options)
        }

        func close() {
            store.close()
            backend.stop()
        }
    }

    /// Runs `body` in a new ``Scenario`` of `kind`, closed afterwards whatever happens.
    func withScenario(_ kind: TestBackend.Kind, definingRequests: [DefiningRequest]? = nil,
                      _ body: (Scenario) throws -> Void) throws {
        let scenario = try definingRequests.map { try Scenario(kind, definingRequests: $0) } ?? Scenario(kind)
        defer { scenario.close() }
        try body(scenario)
    }

    /// The agency keys of the store, in order.
    func agencies(_ store: ODataStore) throws -> [String] {
        let body = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$orderby=agencynum&$select=agencynum")).body
        let value = try JSONValue.parse(body)
        let rows = value["value"] ?? value["d"]?["results"] ?? value["d"]
        return (0..<100).compactMap { rows?[$0]?["agencynum"]?.stringValue }
    }

    func write(_ store: ODataStore, _ method: String, _ url: String, _ body: String? = nil) throws {
        _ = try store.executeAndWait(ODataRequest(method: method, url: url, body: body.map { Array($0.utf8) }))
    }

    /// A property of an agency as the service has it now.
    func served(_ backend: TestBackend, _ key: String, _ property: String) throws -> JSONValue? {
        let answer = try backend.get("TravelagencyCollection('\(key)')")
        guard answer.status == 200 else { return nil }
        let entity = try JSONValue.parse(answer.body)
        return (entity["d"] ?? entity)[property]
    }

    /// Sets a property of an agency on the service directly (someone else's change).
    func changeOnService(_ backend: TestBackend, _ key: String, _ body: String) throws {
        let answer = try backend.send(HTTPRequest(method: backend.kind == .v4 ? "PATCH" : "MERGE",
                                                  url: backend.url("TravelagencyCollection('\(key)')"),
                                                  headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                  body: Array(body.utf8)))
        #expect(answer.status < 300, "\(String(decoding: answer.body, as: UTF8.self))")
    }

    // MARK: - No change

    @Test(arguments: kinds)
    func anUnchangedServiceIsSeenUnchangedAndTheSecondCheckIsCheap(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let first = try store.performAndWait(.checkService)
            #expect(first.differences == [], "\(first.differences)")
            let second = try store.performAndWait(.checkService)
            #expect(!second.changed)
            // V2 (mock-sap) sends an ETag: a 304; V4 (odatapy) none: the document's hash.
            #expect(second.evidence == (kind == .v2 ? .notModified : .sameHash))
            // A download checks too, and goes on.
            #expect(try store.performAndWait(.download()).count == 1)
        }
    }

    // MARK: - Compatible: a new nullable property and a new set

    @Test(arguments: kinds)
    func aNewNullablePropertyAndANewSetAreMigratedInPlace(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let recorder = EventRecorder()
            let subscription = store.subscribe { recorder.record($0) }
            defer { subscription.cancel() }
            let keys = try agencies(store)
            #expect(keys.count >= 3)
            // Queued across the swap: a create, an update, a delete.
            try write(store, "POST", "TravelagencyCollection", #"{"agencynum":"90000001","name":"Created Offline","country":"US"}"#)
            try write(store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"name":"Updated Offline"}"#)
            try write(store, "DELETE", "TravelagencyCollection('\(keys[1])')")
            #expect(try store.performAndWait(.requestQueue).count == 3)

            try world.swapModel([
                (#"<Property Name="url" Type="Edm.String" MaxLength="255""#,
                 #"<Property Name="rating" Type="Edm.Int32"/><Property Name="url" Type="Edm.String" MaxLength="255""#),
                (#"<EntitySet Name="TravelagencyCollection""#,
                 #"<EntitySet Name="AgencyArchive" EntityType="RMTSAMPLEFLIGHT.Travelagency"/><EntitySet Name="TravelagencyCollection""#),
            ])

            let check = try store.performAndWait(.checkService)
            #expect(check.isCompatible && check.changed)
            let kinds = Set(check.differences.map(\.kind))
            #expect(kinds == [.propertyAdded, .entitySetAdded], "\(check.differences)")
            #expect(check.refusedRequests == [])

            // The download migrates in place and goes on; the queue is untouched.
            _ = try store.performAndWait(.download())
            #expect(recorder.wait { events in events.contains { if case .serviceModelChanged(let c) = $0 { c.migrated } else { false } } })
            #expect(try store.performAndWait(.requestQueue).count == 3)
            // The new column and the new set are readable.
            _ = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$select=rating"))
            _ = try store.executeAndWait(ODataRequest(url: "AgencyArchive"))
            // Every queued request uploads.
            let upload = try store.performAndWait(.upload())
            #expect(upload.sent == 3 && upload.archived == 0, "\(upload)")
            #expect(try served(world.backend, keys[0], "name")?.stringValue == "Updated Offline")
            #expect(try served(world.backend, "90000001", "name")?.stringValue == "Created Offline")
            #expect(try world.backend.get("TravelagencyCollection('\(keys[1])')").status == 404)
            // The next download fills the new column.
            try changeOnService(world.backend, keys[2], #"{"rating":7}"#)
            _ = try store.performAndWait(.download())
            let read = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection('\(keys[2])')?$select=rating"))
            let entity = try JSONValue.parse(read.body)
            #expect((entity["d"] ?? entity)["rating"]?.int64Value == 7, "\(String(decoding: read.body, as: UTF8.self))")
        }
    }

    // MARK: - A second handle on the file

    @Test(arguments: kinds)
    func aSecondHandleTakesTheModelAnotherAdoptedAtItsNextCheckWithoutMigratingAgain(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let second = ODataStore.open(world.options)
            defer { second.close() }
            #expect(!(try second.performAndWait(.checkService).changed))
            let keys = try agencies(second)
            try write(second, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"name":"Queued Beside"}"#)

            try world.swapModel([(#"<Property Name="url" Type="Edm.String" MaxLength="255""#,
                                  #"<Property Name="rating" Type="Edm.Int32"/><Property Name="url" Type="Edm.String" MaxLength="255""#)])
            // The first handle's download migrates the file in place.
            _ = try world.store.performAndWait(.download())
            _ = try world.store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$select=rating"))
            // The second still reads under the model it opened with ...
            #expect(throws: ODataError.self) { try second.executeAndWait(ODataRequest(url: "TravelagencyCollection?$select=rating")) }
            // ... until its next check (every download makes one) takes the file's, unchanged for it.
            let check = try second.performAndWait(.checkService)
            #expect(!check.changed && check.differences.isEmpty, "\(check.differences)")
            _ = try second.executeAndWait(ODataRequest(url: "TravelagencyCollection?$select=rating"))
            #expect(try second.performAndWait(.download()).count == 1)
            #expect(try second.performAndWait(.requestQueue).count == 1)
            let upload = try second.performAndWait(.upload())
            #expect(upload.sent == 1 && upload.archived == 0, "\(upload)")
            #expect(try served(world.backend, keys[0], "name")?.stringValue == "Queued Beside")
        }
    }

    // MARK: - Breaks pending changes: a removed property used by a queued update

    @Test(arguments: kinds)
    func aRemovedPropertyArchivesTheOneUpdateThatUsesItAndTheOthersUpload(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let keys = try agencies(store)
            try write(store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"url":"http://changed.example"}"#)
            try write(store, world.merge, "TravelagencyCollection('\(keys[1])')", #"{"name":"Renamed Offline"}"#)
            try write(store, "POST", "TravelagencyCollection", #"{"agencynum":"90000002","name":"New Offline","country":"DE"}"#)
            let queue = try store.performAndWait(.requestQueue)
            #expect(queue.count == 3)

            try world.swapModel([(world.urlElement, "")])

            // The download stops: the change needs the app's choice; the store keeps its model.
            #expect(throws: ODataError.self) { try store.performAndWait(.download()) }
            let check = try store.performAndWait(.checkService)
            #expect(check.impact == .breaksPendingChanges)
            #expect(check.refusedRequests == [queue[0].id], "\(check.differences)")
            let removed = try #require(check.differences.first { $0.kind == .propertyRemoved })
            #expect(removed.member == "url" && removed.queuedRequests == [queue[0].id])

            let adoption = try store.performAndWait(.adoptServiceModel(.archiveRefused))
            #expect(adoption.archived == 1 && adoption.adopted)
            let archive = try store.performAndWait(.errorArchive)
            #expect(archive.map(\.request.id) == [queue[0].id])
            #expect(archive.first?.kind == .modelChanged && archive.first?.message.contains("'url'") == true)
            let upload = try store.performAndWait(.upload())
            #expect(upload.sent == 2 && upload.archived == 0, "\(upload)")
            // What the choice says: the refused change is not on the service, the others are.
            #expect(try served(world.backend, keys[1], "name")?.stringValue == "Renamed Offline")
            #expect(try served(world.backend, "90000002", "name")?.stringValue == "New Offline")
            // The service no longer has the property at all.
            #expect(try served(world.backend, keys[0], "url") == nil)
            #expect(try store.performAndWait(.requestQueue).isEmpty)
        }
    }

    // MARK: - Breaks pending changes: a property made mandatory, a queued create lacking it

    @Test(arguments: kinds)
    func aPropertyMadeMandatoryRefusesTheCreateLackingItWhichIsFixedAndRequeued(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let keys = try agencies(store)
            try write(store, "POST", "TravelagencyCollection", #"{"agencynum":"90000003","name":"No Phone","country":"US"}"#)
            try write(store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"name":"Still Fine"}"#)
            let queue = try store.performAndWait(.requestQueue)

            try world.swapModel([(#"<Property Name="telephone" Type="Edm.String""#,
                                  #"<Property Name="telephone" Type="Edm.String" Nullable="false""#)])

            let check = try store.performAndWait(.checkService)
            let mandatory = try #require(check.differences.first { $0.kind == .propertyMadeMandatory })
            #expect(mandatory.member == "telephone" && mandatory.impact == .breaksPendingChanges)
            #expect(check.refusedRequests == [queue[0].id])

            let adoption = try store.performAndWait(.adoptServiceModel(.archiveRefused))
            #expect(adoption.archived == 1)
            let archived = try #require(try store.performAndWait(.errorArchive).first)
            #expect(archived.kind == .modelChanged && archived.message.contains("telephone"))
            // Fix and requeue, as for any archived request.
            _ = try store.performAndWait(.requeueArchivedRequest(
                id: archived.request.id, body: #"{"agencynum":"90000003","name":"No Phone","country":"US","telephone":"555-0100"}"#))
            let upload = try store.performAndWait(.upload())
            #expect(upload.sent == 2 && upload.archived == 0, "\(upload)")
            #expect(try served(world.backend, "90000003", "telephone")?.stringValue == "555-0100")
            #expect(try served(world.backend, keys[0], "name")?.stringValue == "Still Fine")
        }
    }

    // MARK: - Needs data, breaks pending changes: a changed key type

    @Test(arguments: kinds)
    func aChangedKeyTypeArchivesTheRequestsOnTheOldKeysAndTheStoreReadsTheNewOnes(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let keys = try agencies(store)
            try write(store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"name":"Old Key"}"#)
            let queue = try store.performAndWait(.requestQueue)

            let keyElement = kind == .v4 ? #"<Property Name="agencynum" Type="Edm.String" Nullable="false" MaxLength="8"/>"#
                : #"<Property Name="agencynum" Type="Edm.String" Nullable="false" MaxLength="8" sap:label="Agency No." sap:updatable="false"/>"#
            try world.swapModel([(keyElement, #"<Property Name="agencynum" Type="Edm.Int32" Nullable="false"/>"#)])

            let check = try store.performAndWait(.checkService)
            let retyped = try #require(check.differences.first { $0.kind == .propertyTypeChanged && $0.member == "agencynum" })
            #expect(retyped.type == "RMTSAMPLEFLIGHT.Travelagency" && retyped.new == "Edm.Int32")
            #expect(retyped.impact == .breaksPendingChanges && check.refusedRequests == [queue[0].id], "\(check.differences)")
            #expect(throws: ODataError.self) { try store.performAndWait(.download()) }

            let adoption = try store.performAndWait(.adoptServiceModel(.archiveRefused))
            #expect(adoption.archived == 1 && adoption.adopted)
            let archived = try #require(try store.performAndWait(.errorArchive).first)
            #expect(archived.kind == .modelChanged && archived.message.contains("agencynum"))
            #expect(try store.performAndWait(.requestQueue).isEmpty)
            // The store now speaks the new key: an integer.
            let read = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection(\(Int(keys[1]) ?? 0))"))
            #expect(String(decoding: read.body, as: UTF8.self).contains("agencynum"))
        }
    }

    // MARK: - Needs data, breaks pending changes: a removed set

    @Test(arguments: kinds)
    func aRemovedSetArchivesItsQueuedRequestsAndDropsItsTable(_ kind: TestBackend.Kind) throws {
        let agenciesRequest = DefiningRequest(name: "Agencies", url: "TravelagencyCollection")
        try withScenario(kind, definingRequests: [agenciesRequest, DefiningRequest(name: "Carriers", url: "CarrierCollection")]) { world in
            let carriers = try JSONValue.parse(try world.store.executeAndWait(ODataRequest(url: "CarrierCollection?$top=1")).body)
            let carrier = try #require((carriers["value"] ?? carriers["d"]?["results"] ?? carriers["d"])?[0]?["carrid"]?.stringValue)
            let keys = try agencies(world.store)
            try write(world.store, world.merge, "CarrierCollection('\(carrier)')", #"{"carrname":"Gone Soon"}"#)
            try write(world.store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"name":"Stays"}"#)
            let queue = try world.store.performAndWait(.requestQueue)

            try world.swapModel(kind == .v4 ? [
                ("""
                <EntitySet Name="CarrierCollection" EntityType="RMTSAMPLEFLIGHT.Carrier">
                          <NavigationPropertyBinding Path="CarrierFlights" Target="FlightCollection"/>
                        </EntitySet>
                """, ""),
                (#"<NavigationPropertyBinding Path="FlightCarrier" Target="CarrierCollection"/>"#, ""),
            ] : [
                (#"<EntitySet Name="CarrierCollection" EntityType="RMTSAMPLEFLIGHT.Carrier" sap:pageable="true" sap:content-version="1"/>"#, ""),
                ("""
                <AssociationSet Name="Carrier_FlightsSet" Association="RMTSAMPLEFLIGHT.Carrier_Flights" sap:creatable="false" sap:updatable="false" sap:deletable="false" sap:content-version="1">
                          <End EntitySet="CarrierCollection" Role="FromRole_Carrier_Flights"/>
                          <End EntitySet="FlightCollection" Role="ToRole_Carrier_Flights"/>
                        </AssociationSet>
                """, ""),
            ])

            let check = try world.store.performAndWait(.checkService)
            let removed = try #require(check.differences.first { $0.kind == .entitySetRemoved })
            #expect(removed.entitySet == "CarrierCollection" && removed.impact == .breaksPendingChanges)
            #expect(check.refusedRequests == [queue[0].id], "\(check.differences)")
            // A defining request on the removed set: the app drops it before adopting (never silently).
            #expect(throws: ODataError.self) { try world.store.performAndWait(.adoptServiceModel(.archiveRefused)) }
            #expect(try world.store.performAndWait(.requestQueue).count == 2)
            world.reopen(definingRequests: [agenciesRequest])
            let adoption = try world.store.performAndWait(.adoptServiceModel(.archiveRefused))
            #expect(adoption.archived == 1 && adoption.adopted)
            #expect(try world.store.performAndWait(.errorArchive).first?.message.contains("CarrierCollection") == true)
            let upload = try world.store.performAndWait(.upload())
            #expect(upload.sent == 1 && upload.archived == 0, "\(upload)")
            #expect(try served(world.backend, keys[0], "name")?.stringValue == "Stays")
            #expect(throws: ODataError.self) { try world.store.executeAndWait(ODataRequest(url: "CarrierCollection")) }
        }
    }

    // MARK: - The other ways out: upload first, rebuild

    @Test(arguments: kinds)
    func uploadFirstSendsTheQueueUnderTheOldModelThenAdopts(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let keys = try agencies(store)
            try write(store, world.merge, "TravelagencyCollection('\(keys[0])')", #"{"url":"http://first.example"}"#)
            try write(store, world.merge, "TravelagencyCollection('\(keys[1])')", #"{"name":"Uploaded First"}"#)
            try world.swapModel([(world.urlElement, "")])

            let adoption = try store.performAndWait(.adoptServiceModel(.uploadFirst))
            let upload = try #require(adoption.upload)
            // Both were sent under the old model: what the service took is there, what it refused
            // is in the archive as usual; nothing is left queued, nothing lost.
            #expect(upload.sent + upload.archived == 2, "\(upload)")
            #expect(adoption.adopted && adoption.archived == 0)
            #expect(try store.performAndWait(.requestQueue).isEmpty)
            #expect(try store.performAndWait(.errorArchive).count == upload.archived)
            #expect(try served(world.backend, keys[1], "name")?.stringValue == "Uploaded First")
            #expect(!(try store.performAndWait(.checkService).changed))
        }
    }

    @Test(arguments: kinds)
    func rebuildAdoptsAtOnceKeepingTheQueueWhichTheServiceThenJudges(_ kind: TestBackend.Kind) throws {
        try withScenario(kind) { world in
            let store = world.store
            let keys = try agencies(store)
            try write(store, world.merge, "TravelagencyCollection('\(keys[1])')", #"{"name":"Rebuilt"}"#)
            try world.swapModel([(world.urlElement, "")])

            let adoption = try store.performAndWait(.adoptServiceModel(.rebuild))
            #expect(adoption.adopted && adoption.upload == nil && adoption.archived == 0 && adoption.downloads.count == 1)
            // The queue and its row survived the rebuilt table; the removed column is gone.
            #expect(try store.performAndWait(.requestQueue).count == 1)
            let read = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection('\(keys[1])')"))
            #expect(String(decoding: read.body, as: UTF8.self).contains("Rebuilt"))
            #expect(throws: ODataError.self) { try store.executeAndWait(ODataRequest(url: "TravelagencyCollection?$select=url")) }
            let upload = try store.performAndWait(.upload())
            #expect(upload.sent == 1 && upload.archived == 0, "\(upload)")
            #expect(try served(world.backend, keys[1], "name")?.stringValue == "Rebuilt")
        }
    }
}
