import Testing
@_spi(Tool) @testable import OfflineOData

/// What a check costs on the wire: against a scripted service, the requests it sends are counted.
@Suite struct ServiceModelCheckCostTests {
    /// A store of the flight sample (V4) whose service is `server` under `/svc/`.
    func store(_ server: TestHTTPServer, in folder: TemporaryFolder) throws -> LocalStore {
        try LocalStore.create(path: folder.file("cost.store"), metadata: FlightSample.v4Metadata,
                              serviceRoot: server.baseURL + "/svc/")
    }

    @Test func withAnETagAnUnchangedServiceCostsOneConditionalRequestWithoutABody() throws {
        let document = FlightSample.v4Metadata
        let server = try TestHTTPServer { request in
            guard request.target == "/svc/$metadata" else { return .text(404, "no") }
            if request.header("If-None-Match") == "\"m1\"" { return .respond(status: 304, headers: [("ETag", "\"m1\"")], body: []) }
            return .text(200, document, headers: [("ETag", "\"m1\""), ("Content-Type", "application/xml")])
        }
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = try store(server, in: folder)
        defer { store.close() }
        let first = try store.checkServiceModel(cancellation: nil).check
        #expect(!first.changed && first.evidence == .compared)
        #expect(server.requests.count == 1)
        for _ in 0..<3 {
            let again = try store.checkServiceModel(cancellation: nil).check
            #expect(!again.changed && again.evidence == .notModified)
        }
        // One request per check, the later ones conditional.
        let requests = server.requests
        #expect(requests.count == 4)
        #expect(requests.dropFirst().allSatisfy { $0.header("If-None-Match") == "\"m1\"" })
    }

    @Test func withoutValidatorsTheDocumentIsReadOnceAndRecognisedByItsHash() throws {
        let document = FlightSample.v4Metadata
        let server = try TestHTTPServer { request in
            request.target == "/svc/$metadata" ? .text(200, document) : .text(404, "no")
        }
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = try store(server, in: folder)
        defer { store.close() }
        _ = try store.checkServiceModel(cancellation: nil)
        let again = try store.checkServiceModel(cancellation: nil).check
        #expect(!again.changed && again.evidence == .sameHash)
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.header("If-None-Match") == nil && $0.header("If-Modified-Since") == nil })
    }

    @Test func aChangeWaitingForTheAppIsNeverHiddenByA304() throws {
        // The service sends its ETag; the store has not adopted the changed model.
        let changed = FlightSample.v4Metadata.replacingFirstOccurrence(
            of: #"<Property Name="url" Type="Edm.String" MaxLength="255"/>"#, with: "")
        let server = try TestHTTPServer { request in
            if request.header("If-None-Match") == "\"m2\"" { return .respond(status: 304, headers: [], body: []) }
            return .text(200, changed, headers: [("ETag", "\"m2\"")])
        }
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = try store(server, in: folder)
        defer { store.close() }
        for _ in 0..<2 {
            let check = try store.checkServiceModel(cancellation: nil).check
            #expect(check.changed && check.evidence == .compared && check.impact == .needsData)
        }
        #expect(server.requests.allSatisfy { $0.header("If-None-Match") == nil })
        #expect(try store.pendingModelChange() != nil)
    }

    @Test func anInPlaceMigrationKeepsTheQueueAndTheRowsAndTheNewModelReopens() throws {
        let changed = FlightSample.v4Metadata.replacingFirstOccurrence(
            of: #"<Property Name="url" Type="Edm.String" MaxLength="255"/>"#,
            with: #"<Property Name="url" Type="Edm.String" MaxLength="255"/><Property Name="rating" Type="Edm.Int32"/>"#)
        let server = try TestHTTPServer { _ in .text(200, changed) }
        defer { server.stop() }
        let folder = TemporaryFolder()
        let path = folder.file("cost.store")
        do {
            let store = try store(server, in: folder)
            defer { store.close() }
            _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","name":"A"}"#.utf8))
            let findings = try store.checkServiceModel(cancellation: nil)
            #expect(findings.check.isCompatible && findings.check.differences.map(\.kind) == [.propertyAdded])
            let document = try #require(findings.document)
            let (migrated, summary) = try store.adoptModel(document)
            #expect(summary.addedColumns == ["TravelagencyCollection/rating"] && summary.rebuiltTables.isEmpty)
            #expect(try migrated.file.queuedRequests().count == 1)
            let read = try migrated.execute(method: "GET", url: "TravelagencyCollection('1')?$select=name,rating")
            #expect(String(decoding: read.body, as: UTF8.self).contains("\"rating\":null"))
        }
        let reopened = try LocalStore.open(path: path)
        defer { reopened.close() }
        #expect(reopened.schema.table(forEntitySet: "TravelagencyCollection")?.column(named: "rating") != nil)
        #expect(try reopened.file.queuedRequests().count == 1)
        #expect(try reopened.pendingModelChange() == nil)
    }
}

/// A rebuilt table keeps the indexes made for it where their columns remain.
@Suite struct ModelMigrationIndexTests {
    @Test func aRebuiltTableGetsItsDeclaredIndexesBackAndForgetsOnesOnRemovedColumns() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("index.store"), metadata: FlightSample.v4Metadata,
                                          indexes: [IndexDeclaration(entitySet: "TravelagencyCollection", properties: ["city"]),
                                                    IndexDeclaration(entitySet: "TravelagencyCollection", properties: ["url"])])
        defer { store.close() }
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","city":"Rome"}"#.utf8))
        // The key's type changed and `url` removed: the table is rebuilt.
        var text = FlightSample.v4Metadata.replacingFirstOccurrence(
            of: #"<Property Name="agencynum" Type="Edm.String" Nullable="false" MaxLength="8"/>"#,
            with: #"<Property Name="agencynum" Type="Edm.Int32" Nullable="false"/>"#)
        text = text.replacingFirstOccurrence(of: #"<Property Name="url" Type="Edm.String" MaxLength="255"/>"#, with: "")
        let (migrated, summary) = try store.adoptModel((text, try MetadataReader.read(text), ServiceModelRecord()))
        #expect(summary.rebuiltTables == ["TravelagencyCollection"])
        let indexes = try migrated.indexes().map(\.properties)
        #expect(indexes == [["city"]])
        let explained = try migrated.explain(url: "TravelagencyCollection?$filter=city eq 'Rome'")
        #expect(explained.plan.contains { $0.contains("INDEX") }, "\(explained.plan)")
        #expect(try migrated.file.queuedRequests().count == 1)
        #expect(try migrated.file.check(quick: false) == [])
    }
}

extension String {
    /// The text with the first `old` replaced by `new` (unchanged when `old` is absent).
    func replacingFirstOccurrence(of old: String, with new: String) -> String {
        ServiceModelChangeTests.replacingFirst(old, with: new, in: self) ?? self
    }
}
