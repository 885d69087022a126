#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Media entities on the real V2 service (issue 35, docs/MEDIA.md): mock-sap serving the V2 media
/// model (`Tests/backends/models/media-v2.xml`, `Tests/backends/media_v2.py`), with CSRF on.
@Suite(.serialized) struct V2MediaTests: MediaSuite {
    private func makeStore(_ backend: TestBackend, in folder: TemporaryFolder) throws -> LocalStore {
        try makeMediaStore(backend, in: folder, definingRequests: [DefiningRequest(name: "Documents", url: "Documents", retrievesStreams: true)])
    }

    @Test func aV2MediaEntityDownloadsReadsOfflineAndOneCreatedOfflineUploadsAsPostThenMerge() throws {
        let backend = try TestBackend.start(.v2, media: (count: 2, size: 40_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        #expect(store.dialect == .v2)
        _ = try store.download()
        #expect(try log(backend, "gets").count == 2)
        let (status, served) = try backend.get("Documents('000002')/$value", headers: ["Accept": "*/*"])
        #expect(status == 200 && served.count == 40_000)
        let stream = try store.streamFile(url: "Documents('000002')/$value")
        #expect(stream.length == 40_000 && stream.contentType == "application/pdf")
        #expect(try store.execute(method: "GET", url: "Documents('000002')/$value").body == served)

        // Created offline: readable at once, then a media POST (with the CSRF token) and a MERGE.
        let content = (0..<120_000).map { UInt8(truncatingIfNeeded: $0 &* 29) }
        folder.write("photo.jpg", content)
        let created = try store.createMedia(entitySet: "Documents", contentPath: folder.file("photo.jpg"), contentType: "image/jpeg",
                                            properties: Array(#"{"Title":"taken offline"}"#.utf8))
        #expect(created.status == 201)
        let local = try store.file.withConnection { db throws(ODataError) in
            try StreamTable.record(entitySet: "Documents", entityID: created.entityID, in: db)
        }
        #expect(local?.state == .local && local?.length == 120_000)
        let outcome = try store.upload()
        #expect(outcome.sent == 1 && outcome.archived == 0)
        let posts = try log(backend, "posts")
        #expect(posts.count == 1 && posts.first?["bytes"]?.text == "120000")
        let (_, uploaded) = try backend.get("Documents('000003')/$value", headers: ["Accept": "*/*"])
        #expect(uploaded == content)
        let (_, entity) = try backend.get("Documents('000003')", headers: ["Accept": "application/json"])
        #expect(try JSONValue.parse(entity)["d"]?["Title"]?.text == "taken offline")
        // The local entity has the service's key and media ETag (V2 `__metadata.media_etag`).
        let mine = try store.streamFile(url: "Documents('000003')/$value")
        let servedETag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents('000003')/$value"))).header("ETag")
        #expect(mine.etag != nil && mine.etag == servedETag && mine.length == 120_000)
        // Its stream replaced offline: a PUT of $value, streamed from the file, with the entity's ETag.
        folder.write("new.pdf", Array("replaced".utf8))
        _ = try store.replaceStream(url: "Documents('000001')", contentPath: folder.file("new.pdf"), contentType: "application/pdf")
        #expect(try store.upload().sent == 1)
        #expect(try backend.get("Documents('000001')/$value", headers: ["Accept": "*/*"]).body == Array("replaced".utf8))
        #expect(try log(backend, "puts").count == 1)
        // Nothing left to fetch: the store's streams are the service's.
        let gets = try log(backend, "gets").count
        _ = try store.download()
        #expect(try log(backend, "gets").count == gets)
        #expect(try store.check().isEmpty)
        // The download announced the created entity's media ETag: the one its upload recorded.
        let record = try store.file.withConnection { db throws(ODataError) in
            try StreamTable.record(entitySet: "Documents", entityID: created.entityID, in: db)
        }
        #expect(record?.announcedETag == servedETag && record?.etag == servedETag)
    }

    /// A stream changed on the service while its entity did not (`/_media_quiet_change`): its
    /// `__metadata.media_etag` changes, so the next download fetches that stream of 50 and no other.
    @Test func aV2StreamChangedWithoutItsEntityIsFetchedByItsMediaETag() throws {
        let backend = try TestBackend.start(.v2, media: (count: 50, size: 1_500))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try log(backend, "gets").count == 50)
        let quiet = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_quiet_change",
                                                 body: Array(#"{"set": "Documents", "key": "000017", "content": "quiet", "type": "text/plain"}"#.utf8)))
        #expect(quiet.status == 204)
        _ = try store.download(full: true)
        let sent = try log(backend, "gets").dropFirst(50).map { "\($0["path"]?.text ?? "") \($0["status"]?.text ?? "")" }
        #expect(sent.count == 1 && sent.first?.contains("000017") == true && sent.first?.hasSuffix("/$value 200") == true)
        #expect(try store.execute(method: "GET", url: "Documents('000017')/$value").body == Array("quiet".utf8))
        // Neither changes: nothing asked.
        _ = try store.download(full: true)
        _ = try store.download()
        #expect(try log(backend, "gets").count == 51)
        #expect(try store.check().isEmpty)
    }
}
