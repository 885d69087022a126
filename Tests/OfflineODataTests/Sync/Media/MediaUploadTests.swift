#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Media entities created offline and uploaded (issue 35, docs/MEDIA.md): the media POST of the
/// stream (streamed from its file), then the PATCH of the properties, against the real V4 service.
@Suite(.serialized) struct MediaUploadTests: MediaSuite {
    private func makeStore(_ backend: TestBackend, in folder: TemporaryFolder) throws -> LocalStore {
        try makeMediaStore(backend, in: folder, definingRequests: [DefiningRequest(name: "Documents", url: "Documents", retrievesStreams: true)])
    }

    @Test func aMediaEntityCreatedOfflineIsReadableThenUploadsAsPostThenPatch() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 1_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        folder.write("photo.bin", content)

        let created = try store.createMedia(entitySet: "Documents", contentPath: folder.file("photo.bin"), contentType: "image/jpeg",
                                            properties: Array(#"{"title":"taken offline","owner":"me"}"#.utf8))
        #expect(created.status == 201)
        // Readable offline at once, by its provisional key.
        let local = try store.streamFile(url: "Documents(-1)/$value")
        #expect(local.length == 300_000 && local.contentType == "image/jpeg" && local.etag == nil)
        #expect(try store.file.withConnection { db throws(ODataError) in
            try StreamTable.record(entitySet: "Documents", entityID: created.entityID, in: db)?.state
        } == .local)

        let outcome = try store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 0)
        // One media POST of the whole stream, no $batch; the entity then has the properties.
        let posts = try log(backend, "posts")
        #expect(posts.count == 1)
        #expect(posts.first?["bytes"]?.text == "300000")
        let (status, served) = try backend.get("Documents(3)/$value", headers: ["Accept": "*/*"])
        #expect(status == 200 && served == content)
        let (_, entity) = try backend.get("Documents(3)")
        #expect(try JSONValue.parse(entity)["title"]?.text == "taken offline")

        // The local entity has the service's key and media ETag; the stream is the service's.
        #expect(throws: ODataError.self) { try store.streamFile(url: "Documents(-1)/$value") }
        let uploaded = try store.streamFile(url: "Documents(3)/$value")
        let servedETag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents(3)/$value"))).header("ETag")
        #expect(uploaded.etag != nil && uploaded.etag == servedETag)
        #expect(uploaded.path == local.path)
        // Nothing left to send, and the next download fetches no stream for it.
        #expect(try store.upload().sent == 0)
        let gets = try log(backend, "gets").count
        _ = try store.download()
        #expect(try log(backend, "gets").count == gets)
        #expect(try store.check().isEmpty)
    }

    @Test func aMediaCreateGoesAloneEvenWhenTheUploadBatches() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 100))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        folder.write("a.txt", Array("first".utf8))
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("a.txt"), contentType: "text/plain",
                                  properties: Array(#"{"title":"a"}"#.utf8))
        #expect(try store.upload(batch: true).sent == 1)
        #expect(try log(backend, "posts").count == 1)
        let (_, served) = try backend.get("Documents(2)/$value", headers: ["Accept": "*/*"])
        #expect(served == Array("first".utf8))
    }

    @Test func aMediaCreateIsRefusedForAPlainSetAndAMissingFileKeepsNothing() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 100))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        folder.write("a.txt", Array("x".utf8))
        let plain = #expect(throws: ODataError.self) {
            try store.createMedia(entitySet: "Notes", contentPath: folder.file("a.txt"), contentType: "text/plain", properties: Array("{}".utf8))
        }
        #expect(plain?.code == .semantic)
        let missing = #expect(throws: ODataError.self) {
            try store.createMedia(entitySet: "Documents", contentPath: folder.file("none"), contentType: "text/plain", properties: Array("{}".utf8))
        }
        #expect(missing?.code == .notFound)
        #expect(try store.file.queuedRequests().isEmpty)
        #expect(store.streamFolder.names().isEmpty)
    }

    private func hostile(_ backend: TestBackend, _ json: String) throws {
        _ = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile", body: Array(json.utf8)))
    }

    /// The service creates the entity, but its `Location` leads off the service's origin: refused,
    /// the create stays in doubt (its answer unusable, as if lost). The next upload finds the
    /// entity by its stream, adopts it (the PATCH, no second POST) and records its key.
    @Test func aMediaCreateWhoseAnswerWasLostIsFoundByItsStreamAndNotSentTwice() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 300_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }  // as long as the seeded ones
        folder.write("scan.bin", content)
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("scan.bin"), contentType: "image/tiff",
                                  properties: Array(#"{"title":"answer lost"}"#.utf8))
        try hostile(backend, #"{"location": "http://127.0.0.1:1/elsewhere/Documents(3)"}"#)
        let refused = #expect(throws: ODataError.self) { try store.upload() }
        #expect(refused?.message.contains("leaves the service's origin") == true)
        #expect(try store.file.queuedRequests().map(\.state) == [.inDoubt])
        try hostile(backend, "{}")

        let preview = try store.previewUpload()
        #expect(preview.steps.first?.kind == .settle && preview.steps.first?.request?.url.hasSuffix("/Documents") == true)
        let outcome = try store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 0)
        #expect(try log(backend, "posts").count == 1)  // adopted: never POSTed twice
        let (_, entity) = try backend.get("Documents(3)")
        #expect(try JSONValue.parse(entity)["title"]?.text == "answer lost")
        #expect(try backend.get("Documents(4)").status == 404)
        let uploaded = try store.streamFile(url: "Documents(3)/$value")
        #expect(uploaded.length == 300_000 && uploaded.etag != nil)
        #expect(try store.file.queuedRequests().isEmpty && store.file.errorArchive().isEmpty)
        #expect(try store.check().isEmpty)
    }

    /// A media create left in doubt that the service never applied (its POST did not reach it):
    /// nothing on the service has its stream (an entity new to the store with as many bytes is
    /// compared and differs), so the next upload sends it again, once.
    @Test func aMediaCreateInDoubtThatTheServiceNeverGotIsSentAgain() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 1_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        folder.write("memo.txt", Array(repeating: 0x41, count: 1_000))  // the seeded one's length, other bytes
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("memo.txt"), contentType: "text/plain",
                                  properties: Array(#"{"title":"never got"}"#.utf8))
        let ids = try store.file.queuedRequests().map(\.id)
        try store.file.withConnection { db throws(ODataError) in try RequestQueueTable.markInDoubt(ids: ids, in: db) }
        let other = try backend.send(HTTPRequest(method: "POST", url: backend.url("Documents"), headers: [HTTPHeader("Content-Type", "text/plain")],
                                                 body: Array(repeating: 0x42, count: 1_000)))
        #expect(other.status == 201)

        let outcome = try store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 0)
        #expect(try log(backend, "posts").count == 2)  // the other one's, then the create's, once
        let gets = try log(backend, "gets").compactMap { $0["path"]?.text }
        #expect(gets.contains { $0.hasSuffix("Documents(2)/$value") })  // compared: same length, other bytes
        let (_, entity) = try backend.get("Documents(3)")
        #expect(try JSONValue.parse(entity)["title"]?.text == "never got")
        #expect(try store.file.queuedRequests().isEmpty && store.file.errorArchive().isEmpty)
    }

    /// Two entities new to the store with the very bytes sent: the engine cannot tell which one it
    /// created, so the create goes to the error archive as in doubt, for the app; nothing is sent.
    @Test func aMediaCreateInDoubtWithTwoCandidatesIsArchivedForTheApp() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 100))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let content = Array("the same bytes twice".utf8)
        folder.write("same.txt", content)
        for _ in 0..<2 {
            let posted = try backend.send(HTTPRequest(method: "POST", url: backend.url("Documents"),
                                                      headers: [HTTPHeader("Content-Type", "text/plain")], body: content))
            #expect(posted.status == 201)
        }
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("same.txt"), contentType: "text/plain",
                                  properties: Array(#"{"title":"which one"}"#.utf8))
        let ids = try store.file.queuedRequests().map(\.id)
        try store.file.withConnection { db throws(ODataError) in try RequestQueueTable.markInDoubt(ids: ids, in: db) }
        let posts = try log(backend, "posts").count

        let outcome = try store.upload()
        #expect(outcome.sent == 0 && outcome.archived == 1 && outcome.inDoubt == 1)
        #expect(try log(backend, "posts").count == posts)
        let archived = try store.file.errorArchive()
        #expect(archived.first?.kind == .inDoubt && archived.first?.message.contains("the same stream") == true)
    }

    /// A stream replaced offline and a media entity deleted offline, with a property change
    /// between them: queued in that order, uploaded in that order (the PUT of the `$value`
    /// streamed from the file), then the store has the service's media ETag and no file of the
    /// deleted entity.
    @Test func aStreamReplacedAndAMediaEntityDeletedOfflineUploadInQueueOrder() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 5_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let before = try store.streamFile(url: "Documents(1)/$value")
        let gone = try store.streamFile(url: "Documents(2)/$value")
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        folder.write("new.bin", content)

        _ = try store.replaceStream(url: "Documents(1)/$value", contentPath: folder.file("new.bin"), contentType: "image/webp")
        _ = try store.execute(method: "PATCH", url: "Documents(1)", body: Array(#"{"title":"replaced"}"#.utf8))
        _ = try store.execute(method: "DELETE", url: "Documents(2)")
        // Readable offline at once; the old file is gone.
        let local = try store.streamFile(url: "Documents(1)/$value")
        #expect(local.length == 200_000 && local.contentType == "image/webp" && local.path != before.path)
        #expect(access(before.path, F_OK) != 0)
        #expect(try store.execute(method: "GET", url: "Documents(1)/$value").body == content)
        #expect(try store.file.queuedRequests().map { "\($0.method) \($0.url)" }
                == ["PUT Documents(1)/$value", "PATCH Documents(1)", "DELETE Documents(2)"])

        let outcome = try store.upload()
        #expect(outcome.sent == 3 && outcome.archived == 0)
        #expect(try store.file.errorArchive().isEmpty)
        let puts = try log(backend, "puts")
        #expect(puts.count == 1 && puts.first?["bytes"]?.text == "200000" && puts.first?["status"]?.text?.hasPrefix("2") == true)
        let (status, served) = try backend.get("Documents(1)/$value", headers: ["Accept": "*/*"])
        #expect(status == 200 && served == content)
        let (_, entity) = try backend.get("Documents(1)")
        #expect(try JSONValue.parse(entity)["title"]?.text == "replaced")
        #expect(try backend.get("Documents(2)").status == 404)
        // The store has the service's media ETag; the deleted entity's stream left with it.
        let uploaded = try store.streamFile(url: "Documents(1)/$value")
        let servedETag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents(1)/$value"))).header("ETag")
        #expect(uploaded.etag != nil && uploaded.etag == servedETag && uploaded.path == local.path)
        #expect(access(gone.path, F_OK) != 0)
        #expect(try store.check().isEmpty)
        // The next download fetches no stream: the store's is the service's.
        let gets = try log(backend, "gets").count
        _ = try store.download()
        #expect(try log(backend, "gets").count == gets)
        #expect(try store.streamFile(url: "Documents(1)/$value").sha256 == local.sha256)
    }

    /// A stream replaced before its create was uploaded: no request of its own, the create
    /// sends the new content.
    @Test func aStreamReplacedBeforeItsCreateWasUploadedGoesWithTheCreate() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 100))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        folder.write("first.txt", Array("first draft".utf8))
        folder.write("second.txt", Array("second draft, longer".utf8))
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("first.txt"), contentType: "text/plain",
                                  properties: Array(#"{"title":"draft"}"#.utf8))
        _ = try store.replaceStream(url: "Documents(-1)", contentPath: folder.file("second.txt"), contentType: "text/markdown")
        #expect(try store.file.queuedRequests().map(\.method) == [.post])
        #expect(try store.upload().sent == 1)
        let (_, served) = try backend.get("Documents(2)/$value", headers: ["Accept": "*/*"])
        #expect(served == Array("second draft, longer".utf8))
        #expect(try log(backend, "posts").count == 1 && log(backend, "puts").isEmpty)
        #expect(try store.check().isEmpty)
    }

    /// A large media POST and PUT report their bytes in progress events while they travel (one
    /// each MiB handed to the connection), before the request's own event; the events only
    /// inform: nothing here stops a transfer, so the test waits on no event.
    @Test func aLargeMediaUploadReportsItsBytesWhileTheyTravel() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 1_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let size = 5 * 1_048_576 + 123
        folder.write("big.bin", (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        _ = try store.createMedia(entitySet: "Documents", contentPath: folder.file("big.bin"), contentType: "application/octet-stream",
                                  properties: Array(#"{"title":"big"}"#.utf8))
        var events: [UploadProgress] = []
        let outcome = try store.upload(progress: { events.append($0); return false })
        #expect(outcome.sent == 1)
        // While the POST travels: nothing sent yet, the bytes growing a MiB at a time to the whole stream.
        let inFlight = events.filter { $0.sent == 0 && $0.bytesSent > 0 }
        #expect(inFlight.count >= 5)
        #expect(zip(inFlight, inFlight.dropFirst()).allSatisfy { $0.bytesSent < $1.bytesSent })
        #expect(inFlight.last.map { $0.bytesSent >= size } == true)
        #expect(events.last?.sent == 1 && (events.last?.bytesSent ?? 0) >= size)

        // A replacement's PUT the same way.
        folder.write("other.bin", (0..<(3 * 1_048_576)).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        _ = try store.replaceStream(url: "Documents(2)", contentPath: folder.file("other.bin"), contentType: "application/octet-stream")
        events = []
        #expect(try store.upload(progress: { events.append($0); return false }).sent == 1)
        let putting = events.filter { $0.sent == 0 && $0.bytesSent > 0 }
        #expect(putting.count >= 3 && putting.last.map { $0.bytesSent >= 3 * 1_048_576 } == true)
        #expect(try backend.get("Documents(2)/$value", headers: ["Accept": "*/*"]).body.count == 3 * 1_048_576)
    }
}
