import Testing
@_spi(Tool) @testable import OfflineOData

/// Repeatable requests: sent only where `$metadata` declares them, with an id and a first-sent
/// date that a retry (after a lost answer) repeats unchanged, alone and inside `$batch`.
@Suite struct RepeatableRequestsTests {
    /// The flight sample's V4 metadata, with `annotation` put into its entity container.
    static func metadata(containerAnnotation annotation: String) -> String {
        LocalWriterTests.metadata.replacingFirst(
            #"<EntityContainer Name="RMTSAMPLEFLIGHT_Entities">"#,
            with: #"<EntityContainer Name="RMTSAMPLEFLIGHT_Entities">"# + annotation)
    }

    static let supported = #"<Annotation Term="Org.OData.Repeatability.V1.Supported"/>"#

    @Test func theModelSaysWhereRepeatableRequestsAreSupported() throws {
        let plain = try MetadataReader.read(LocalWriterTests.metadata)
        #expect(!plain.supportsRepeatableRequests(entitySet: "TravelagencyCollection"))
        let everywhere = try MetadataReader.read(Self.metadata(containerAnnotation: Self.supported))
        #expect(everywhere.supportsRepeatableRequests(entitySet: "TravelagencyCollection"))
        // The entity set's own annotation wins over the container's; out-of-line blocks count.
        let allButFlights = try MetadataReader.read(Self.metadata(containerAnnotation: Self.supported).replacingFirst(
            "</EntityContainer>", with: """
            </EntityContainer>
            <Annotations Target="RMTSAMPLEFLIGHT.RMTSAMPLEFLIGHT_Entities/FlightCollection">
              <Annotation Term="Org.OData.Repeatability.V1.Supported" Bool="false"/>
            </Annotations>
            """))
        #expect(allButFlights.supportsRepeatableRequests(entitySet: "TravelagencyCollection"))
        #expect(!allButFlights.supportsRepeatableRequests(entitySet: "FlightCollection"))
    }

    @Test func aRetryAfterALostAnswerRepeatsTheIdAndTheFirstSentDate() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("r.store"),
                                            metadata: Self.metadata(containerAnnotation: Self.supported))
        defer { store.close() }
        let attempts = Counter()
        // The first PATCH is applied but its answer lost (the connection breaks mid-answer); the
        // next upload sends it again.
        let server = try TestHTTPServer { request in
            if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "") }
            return attempts.increment() == 1 ? .cut(announced: 64, body: Array("{".utf8)) : .text(204, "")
        }
        defer { server.stop() }
        try store.file.withConnection { db throws(ODataError) in
            try db.prepare(#"INSERT INTO "es/TravelagencyCollection" (agencynum, name) VALUES ('00000001', 'A')"#).run([])
        }
        _ = try store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        func uploader() throws -> Uploader {
            Uploader(transport: try HTTPTransport(), serviceRoot: server.baseURL + "/svc/", dialect: .v4,
                     file: store.file, schema: store.schema)
        }
        #expect(throws: ODataError.self) { try uploader().upload() }
        #expect(try store.file.queuedRequests().count == 1)
        #expect(try uploader().upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
        let patches = server.requests.filter { $0.method == "PATCH" }
        #expect(patches.count == 2)
        let ids = patches.map { $0.header("Repeatability-Request-ID") }
        let dates = patches.map { $0.header("Repeatability-First-Sent") }
        #expect(ids[0] != nil && ids[0] == ids[1])
        #expect(dates[0] != nil && dates[0] == dates[1])
        #expect(dates[0]?.hasSuffix(" GMT") == true)
        #expect(patches.allSatisfy { $0.header("Repeatability-Client-ID") == ids[0]?.split(separator: "-").first.map(String.init) })
    }

    @Test func aServiceThatDoesNotDeclareThemGetsNone() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("n.store"), metadata: LocalWriterTests.metadata)
        defer { store.close() }
        let server = try TestHTTPServer { _ in .text(201, "{}") }
        defer { server.stop() }
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        let uploader = Uploader(transport: try HTTPTransport(), serviceRoot: server.baseURL + "/svc/", dialect: .v4,
                                file: store.file, schema: store.schema)
        #expect(try uploader.upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
        let post = try #require(server.requests.first { $0.method == "POST" })
        #expect(post.headers.allSatisfy { !$0.name.lowercased().hasPrefix("repeatability") })
        #expect(try store.file.errorArchive().isEmpty)
    }

    @Test func eachRequestOfABatchCarriesItsOwnId() throws {
        let supported = try MetadataReader.read(Self.metadata(containerAnnotation: Self.supported))
        let repeatable = RepeatableRequests(model: supported, clientID: "c0ffee")
        var post = BatchRequestBuilderTests.post
        post.firstSent = "Tue, 24 Nov 2026 03:00:00 GMT"
        let plan = ChangeSetPlan.plan([post, BatchRequestBuilderTests.delete], groupByTransaction: false, contentIDReferences: true)
        let text = String(decoding: try BatchRequestBuilder(makeBoundary: { kind, _ in "\(kind)_b" }).build(plan, headers: repeatable.headers(for:)).body,
                          as: UTF8.self)
        #expect(text.contains("POST TravelagencyCollection HTTP/1.1\r\nAccept: application/json\r\nContent-Type: application/json\r\n"
            + "Repeatability-Request-ID: c0ffee-1-Tue24Nov2026030000GMT\r\nRepeatability-Client-ID: c0ffee\r\n"
            + "Repeatability-First-Sent: Tue, 24 Nov 2026 03:00:00 GMT\r\n\r\n"))
        // Not stamped yet (never sent): no headers rather than a made-up date.
        #expect(!text.contains("c0ffee-3"))
    }
}

extension String {
    /// The text with the first occurrence of `target` replaced (unchanged when there is none).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        let characters = Array(self)
        let needle = Array(target)
        guard !needle.isEmpty, characters.count >= needle.count else { return self }
        for start in 0...(characters.count - needle.count) where characters[start..<(start + needle.count)].elementsEqual(needle) {
            return String(characters[..<start]) + replacement + String(characters[(start + needle.count)...])
        }
        return self
    }
}
