import Testing
@_spi(Tool) @testable import OfflineOData

/// The upload's preview against a scripted service: what it shows is what the upload then sends,
/// it sends and changes nothing, credentials are masked, requests in doubt are settled first.
@Suite struct UploadPreviewTests {
    typealias Fixture = UploaderTests.Fixture

    /// Compacts the queue as the fixture's uploader does (not, unless asked).
    static func previewer(_ f: Fixture, options: HTTPOptions = HTTPOptions(), batch: Bool = false,
                          compactsQueue: Bool = false) throws -> UploadPreviewer {
        UploadPreviewer(transport: try HTTPTransport(options: options), serviceRoot: f.server.baseURL + "/svc/", dialect: .v4,
                        file: f.store.file, schema: f.store.schema, batch: batch, compactsQueue: compactsQueue)
    }

    static func queue(_ f: Fixture) throws -> [QueuedRequest] { try f.store.file.queuedRequests() }

    @Test func theUploadSendsWhatThePreviewShowedInOrder() throws {
        let f = try Fixture(UploaderTests.service)
        try f.seed("00000001")
        try f.seed("00000002")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000002')")
        let before = try Self.queue(f)
        let preview = try Self.previewer(f).preview()
        #expect(f.server.requests.isEmpty)
        #expect(try Self.queue(f) == before)
        #expect(preview.steps.map(\.kind) == [.csrfFetch, .send, .send, .send])
        #expect(preview.steps.map(\.requestIDs) == [[], [1], [2], [3]])

        #expect(try f.uploader().upload().withoutBytes == UploadOutcome(sent: 3, archived: 0))
        let received = f.server.requests
        #expect(received.count == preview.requests.count)
        for (shown, sent) in zip(preview.requests, received) {
            #expect(shown.method == sent.method)
            #expect(shown.url == f.server.baseURL + sent.target)
            #expect(shown.body.map { Array($0.utf8) } ?? [] == sent.body)
            for header in shown.headers {
                switch header.shown {
                case .exact: #expect(sent.header(header.name) == header.value, "\(header.name)")
                case .placeholder: #expect(header.value == UploadPreviewPlaceholder.csrfToken && sent.header(header.name) == "t1")
                case .masked: Issue.record("nothing to mask: \(header.name)")
                }
            }
            // Every header sent is shown, except libcurl's own.
            let shownNames = Set(shown.headers.map { $0.name.lowercased() })
            let unshown = sent.headers.map { $0.name.lowercased() }.filter { !shownNames.contains($0) }
            #expect(Set(unshown).isSubset(of: ["host", "content-length", "accept-encoding"]), "\(unshown)")
        }
    }

    @Test func credentialsAreMasked() throws {
        let f = try Fixture(UploaderTests.service)
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        var options = HTTPOptions()
        options.authentication = .basic(user: "alice", password: "s3cret-pw")
        options.headers = [HTTPHeader("X-API-Key", "key-123"), HTTPHeader("X-Tenant", "north")]
        options.cookies = [HTTPHeader("sid", "cookie-456")]
        let preview = try Self.previewer(f, options: options).preview()
        let text = preview.jsonText
        for secret in ["s3cret-pw", "alice", "key-123", "cookie-456"] { #expect(!text.contains(secret), "\(secret)") }
        let headers = try #require(preview.steps.last?.request?.headers)
        func shown(_ name: String) -> PreviewHeader? { headers.first { $0.name == name } }
        #expect(shown("Authorization") == PreviewHeader(name: "Authorization", value: "Basic ***", shown: .masked))
        #expect(shown("X-API-Key") == PreviewHeader(name: "X-API-Key", value: "***", shown: .masked))
        #expect(shown("Cookie") == PreviewHeader(name: "Cookie", value: "sid=***", shown: .masked))
        #expect(shown("X-Tenant") == PreviewHeader(name: "X-Tenant", value: "north", shown: .exact))
        options.authentication = .bearer(token: "tok-789")
        let bearer = try Self.previewer(f, options: options).preview()
        #expect(!bearer.jsonText.contains("tok-789"))
        #expect(bearer.steps.last?.request?.headers.contains(PreviewHeader(name: "Authorization", value: "Bearer ***", shown: .masked)) == true)
    }

    @Test func requestsInDoubtAreSettledFirstAndNothingIsMarked() throws {
        let f = try Fixture(UploaderTests.service)
        try f.seed("00000001")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        // A create whose key the service assigns cannot be found out: it would go to the error archive.
        try f.store.file.withConnection { db throws(ODataError) in
            try RequestQueueTable.markInDoubt(ids: [1], in: db)
        }
        let before = try Self.queue(f)
        let preview = try Self.previewer(f).preview()
        #expect(try Self.queue(f) == before)
        #expect(preview.steps.map(\.kind) == [.settle, .csrfFetch, .send])
        #expect(preview.steps.first?.request?.method == "GET")
        #expect(preview.steps.first?.request?.url == f.server.baseURL + "/svc/TravelagencyCollection('00000001')")
        #expect(preview.steps.first?.requestIDs == [1])
    }

    @Test func thePreviewShowsTheQueueAsTheUploadCompactsIt() throws {
        let f = try Fixture(UploaderTests.service)
        try UploaderTests.queueCreateAndChanges(f)
        let before = try Self.queue(f)
        let preview = try Self.previewer(f, compactsQueue: true).preview()
        #expect(try Self.queue(f) == before, "the preview compacts in memory only")
        // POST N1 took its PATCH's values; the PATCH of 00000001 is dropped for its DELETE.
        #expect(preview.steps.map(\.kind) == [.csrfFetch, .send, .send])
        let shownBodies = preview.steps.compactMap { $0.kind == .send ? $0.request?.body : nil }
        #expect(shownBodies.first == #"{"agencynum":"N1","name":"New","city":"Oslo"}"#)

        let outcome = try f.uploader(compactsQueue: true).upload()
        #expect(outcome.sent == 2 && outcome.compacted == 2)
        let sent = f.server.requests.filter { $0.header("X-CSRF-Token") != "Fetch" }
        let shown = preview.steps.compactMap { $0.kind == .send ? $0.request : nil }
        #expect(sent.map(\.method) == shown.map(\.method))
        #expect(sent.map(\.target).map { f.server.baseURL + $0 } == shown.map(\.url))
        #expect(sent.map(\.body) == shown.map { Array(($0.body ?? "").utf8) })
    }

    @Test func aBatchShowsItsChangeSetsAndTheBodyTheUploadBuilds() throws {
        let f = try Fixture(UploaderTests.service)
        try f.seed("00000001")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('N1')", body: Array(#"{"city":"Oslo"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        let preview = try Self.previewer(f, batch: true).preview()
        #expect(preview.steps.map(\.kind) == [.csrfFetch, .batch])
        let batch = try #require(preview.steps.last)
        #expect(batch.changeSets == [[1, 2], [3]])
        let request = try #require(batch.request)
        #expect(request.method == "POST" && request.url == f.server.baseURL + "/svc/$batch")
        #expect(request.headers.first == PreviewHeader(name: "Content-Type", value: "multipart/mixed; boundary=batch_ood_1"))
        // The body is the builder's, with the boundaries made from the queue ids.
        let chunk = try Self.queue(f)
        let plan = ChangeSetPlan.plan(chunk, groupByTransaction: false, contentIDReferences: true)
        #expect(request.body == String(decoding: try BatchRequestBuilder().build(plan).body, as: UTF8.self))
        #expect(request.body?.contains("--changeset_ood_3\r\n") == true)
    }

    @Test func repeatableRequestsShowTheirFirstSentDateAsAPlaceholderUntilSentThenExactly() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("r.store"), metadata: RepeatableRequestsTests.metadata(
            containerAnnotation: RepeatableRequestsTests.supported))
        defer { store.close() }
        let attempts = Counter()
        // The first PATCH's answer is lost: the next upload sends it again with the same id and date.
        let server = try TestHTTPServer { request in
            if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "") }
            return attempts.increment() == 1 ? .cut(announced: 64, body: Array("{".utf8)) : .text(204, "")
        }
        defer { server.stop() }
        try store.file.withConnection { db throws(ODataError) in
            try db.prepare(#"INSERT INTO "es/TravelagencyCollection" (agencynum, name) VALUES ('00000001', 'A')"#).run([])
        }
        _ = try store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        let root = server.baseURL + "/svc/"
        func previewed() throws -> [PreviewHeader] {
            let preview = try UploadPreviewer(transport: try HTTPTransport(), serviceRoot: root, dialect: .v4, file: store.file,
                                              schema: store.schema).preview()
            #expect(preview.steps.map(\.kind) == [.csrfFetch, .send])
            return preview.steps.last?.request?.headers.filter { $0.name.hasPrefix("Repeatability-") } ?? []
        }
        let fresh = try previewed()
        #expect(fresh == [
            PreviewHeader(name: "Repeatability-Request-ID", value: "<client id>-1-<first-sent date>", shown: .placeholder),
            PreviewHeader(name: "Repeatability-Client-ID", value: "<client id>", shown: .placeholder),
            PreviewHeader(name: "Repeatability-First-Sent", value: "<first-sent date>", shown: .placeholder)])
        // The preview made no client id: the first upload does.
        #expect(try store.file.withConnection { db throws(ODataError) in
            try StoreInfoTable.value(RepeatableRequests.clientIDKey, in: db)
        } == nil)
        let uploader = Uploader(transport: try HTTPTransport(), serviceRoot: root, dialect: .v4, file: store.file, schema: store.schema)
        #expect(throws: ODataError.self) { try uploader.upload() }
        // In doubt and repeatable: no read first, the same headers again, now known.
        let retry = try previewed()
        #expect(retry.allSatisfy { $0.shown == .exact } && retry.count == 3)
        #expect(try uploader.upload().withoutBytes == UploadOutcome(sent: 1, archived: 0))
        let sent = try #require(server.requests.last { $0.method == "PATCH" })
        for header in retry { #expect(sent.header(header.name) == header.value, "\(header.name)") }
    }

    @Test func anEmptyQueueHasNoSteps() throws {
        let f = try Fixture(UploaderTests.service)
        #expect(try Self.previewer(f).preview().steps.isEmpty)
        #expect(f.server.requests.isEmpty)
    }
}
