#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// V4 `Edm.Stream` properties kept offline like media streams (issue 35, docs/MEDIA.md), against
/// the real V4 service: `Inspections` of the media model, with the stream properties `photo` and
/// `signature` (Inspections(3) has no signature), served by `Tests/backends/media_streams.py`.
@Suite(.serialized) struct StreamPropertyTests: MediaSuite {
    private func makeStore(_ backend: TestBackend, in folder: TemporaryFolder) throws -> LocalStore {
        try makeMediaStore(backend, in: folder, definingRequests: [DefiningRequest(name: "Inspections", url: "Inspections", retrievesStreams: true),
                                                                  DefiningRequest(name: "Documents", url: "Documents")])
    }

    @Test func streamPropertiesDownloadAsFilesAndReadOffline() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 70_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        // Three photos and two signatures, and the one signature the service has not (a 204);
        // none of the Documents' streams (their request does not retrieve streams).
        let fetched = try gets(backend)
        #expect(fetched.filter { $0.status == 200 }.map(\.path).sorted()
                == ["/Inspections(1)/photo", "/Inspections(1)/signature", "/Inspections(2)/photo",
                    "/Inspections(2)/signature", "/Inspections(3)/photo"])
        #expect(fetched.filter { $0.status == 204 }.map(\.path) == ["/Inspections(3)/signature"])
        #expect(fetched.count == 6)
        for key in 1...3 {
            let (status, served) = try backend.get("Inspections(\(key))/photo", headers: ["Accept": "*/*"])
            #expect(status == 200 && served.count == 70_000)
            let stream = try store.streamFile(url: "Inspections(\(key))/photo")
            #expect(stream.length == 70_000 && stream.contentType == "image/jpeg")
            #expect(fileBytes(stream.path) == served)
            // The ordinary request API answers it from the file, offline.
            let answer = try store.execute(method: "GET", url: "Inspections(\(key))/photo")
            #expect(answer.status == 200 && answer.body == served && answer.contentType == "image/jpeg")
            #expect(answer.header("ETag") == stream.etag && stream.etag?.hasPrefix("\"") == true)
        }
        let (_, signature) = try backend.get("Inspections(2)/signature", headers: ["Accept": "*/*"])
        #expect(signature.count == 300)
        #expect(try store.execute(method: "GET", url: "Inspections(2)/signature").body == signature)
        let none = #expect(throws: ODataError.self) { try store.execute(method: "GET", url: "Inspections(3)/signature") }
        #expect(none?.code == .notFound)
        let notAStream = #expect(throws: ODataError.self) { try store.streamFile(url: "Inspections(1)/place") }
        #expect(notAStream?.code == .semantic)
        let followed = #expect(throws: ODataError.self) { try store.execute(method: "GET", url: "Inspections(1)/photo/$value") }
        #expect(followed?.code == .semantic)
        let notMedia = #expect(throws: ODataError.self) { try store.streamFile(url: "Inspections(1)/$value") }
        #expect(notMedia?.code == .semantic)
        #expect(try store.check().isEmpty)

        // Nothing changed: the next download asks for no stream, not even the absent signature.
        let served = try gets(backend).count  // with the test's own reads of the service
        _ = try store.download()
        #expect(try gets(backend).count == served)

        // The service changes Inspections(2)'s photo (its entity's ETag with it): the next download
        // fetches that photo, and not the signature, whose announced media ETag did not change.
        let changed = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        let put = try backend.send(HTTPRequest(method: "PUT", url: backend.url("Inspections(2)/photo"),
                                               headers: [HTTPHeader("Content-Type", "image/png")], body: changed))
        #expect(put.status == 204)
        _ = try store.download()
        let after = try gets(backend).dropFirst(served)
        #expect(after.map { "\($0.path) \($0.status) \($0.bytes)" }
                == ["/Inspections(2)/photo 200 5000"])
        let photo = try store.streamFile(url: "Inspections(2)/photo")
        #expect(fileBytes(photo.path) == changed && photo.contentType == "image/png")
        #expect(try store.execute(method: "GET", url: "Inspections(2)/signature").body == signature)

        // A removed entity takes its streams' files with it.
        let removedPhoto = try store.streamFile(url: "Inspections(1)/photo").path
        #expect(try backend.send(HTTPRequest(method: "DELETE", url: backend.url("Inspections(1)"),
                                                             headers: [HTTPHeader("If-Match", "*")])).status == 204)
        _ = try store.download()
        #expect(access(removedPhoto, F_OK) != 0)
        #expect(try store.file.withConnection { db throws(ODataError) in
            try StreamTable.records(entitySet: "Inspections", entityID: 1, in: db)
        }.isEmpty)
        #expect(try store.check().isEmpty)
    }

    @Test func aStreamPropertyReplacedOfflineUploadsAsAPutStreamedFromTheFile() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 4_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let signature = try store.streamFile(url: "Inspections(1)/signature")
        let content = (0..<250_000).map { UInt8(truncatingIfNeeded: $0 &* 17) }
        folder.write("photo.png", content)

        _ = try store.replaceStream(url: "Inspections(1)/photo", contentPath: folder.file("photo.png"), contentType: "image/png")
        // A second replacement before the upload keeps the one queued PUT, which sends the latest file.
        _ = try store.replaceStream(url: "Inspections(1)/photo", contentPath: folder.file("photo.png"), contentType: "image/png")
        // Readable offline at once, and the other stream property as it was.
        #expect(try store.execute(method: "GET", url: "Inspections(1)/photo").body == content)
        #expect(try store.streamFile(url: "Inspections(1)/photo").contentType == "image/png")
        #expect(try store.streamFile(url: "Inspections(1)/signature") == signature)
        #expect(try store.file.queuedRequests().map { "\($0.method) \($0.url)" } == ["PUT Inspections(1)/photo"])
        // A signature the service had not: replaced offline too.
        folder.write("sig.svg", Array("<svg/>".utf8))
        _ = try store.replaceStream(url: "Inspections(3)/signature", contentPath: folder.file("sig.svg"), contentType: "image/svg+xml")
        #expect(try store.execute(method: "GET", url: "Inspections(3)/signature").body == Array("<svg/>".utf8))

        let outcome = try store.upload()
        #expect(outcome.sent == 2 && outcome.archived == 0)
        let puts = try log(backend, "puts")
        #expect(puts.map { "\($0["path"]?.text ?? "") \($0["bytes"]?.text ?? "")" }
                == ["/Inspections(1)/photo 250000", "/Inspections(3)/signature 6"])
        let (status, served) = try backend.get("Inspections(1)/photo", headers: ["Accept": "*/*"])
        #expect(status == 200 && served == content)
        #expect(try backend.get("Inspections(3)/signature", headers: ["Accept": "*/*"]).body == Array("<svg/>".utf8))
        #expect(try store.file.queuedRequests().isEmpty)
        #expect(try store.check().isEmpty)
        // The store's streams are the service's now: the next download fetches none of them.
        let count = try gets(backend).count
        _ = try store.download()
        let again = try gets(backend).dropFirst(count).map { "\($0.path) \($0.status)" }
        #expect(again == [])
        #expect(try store.execute(method: "GET", url: "Inspections(1)/photo").body == content)
    }

    /// An entity with stream properties created offline and its photo replaced before the create
    /// was uploaded: the queue sends the create, then the photo's PUT at the entity's address, in
    /// that order; the service ends with the file's bytes, and the store with the service's media
    /// ETag, so the next download fetches nothing.
    @Test func aStreamPropertyOfAnEntityCreatedOfflineUploadsAfterItsCreate() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 2_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let created = try store.execute(method: "POST", url: "Inspections", body: Array(#"{"id": 9, "place": "new site"}"#.utf8))
        #expect(created.status == 201)
        let content = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        folder.write("site.jpg", content)
        _ = try store.replaceStream(url: "Inspections(9)/photo", contentPath: folder.file("site.jpg"), contentType: "image/jpeg")
        #expect(try store.execute(method: "GET", url: "Inspections(9)/photo").body == content)
        #expect(try store.file.queuedRequests().map { "\($0.method) \($0.url)" } == ["POST Inspections", "PUT Inspections(9)/photo"])

        let outcome = try store.upload()
        #expect(outcome.sent == 2 && outcome.archived == 0)
        #expect(try log(backend, "puts").map { $0["path"]?.text ?? "" } == ["/Inspections(9)/photo"])
        let (status, served) = try backend.get("Inspections(9)/photo", headers: ["Accept": "*/*"])
        #expect(status == 200 && served == content)
        let (_, entity) = try backend.get("Inspections(9)")
        let announced = try JSONValue.parse(entity)["photo@odata.mediaEtag"]?.stringValue
        let photo = try store.streamFile(url: "Inspections(9)/photo")
        #expect(announced != nil && photo.etag == announced && photo.length == 40_000)
        #expect(try store.file.queuedRequests().isEmpty)
        let count = try gets(backend).count
        _ = try store.download()
        // The new entity's signature, which the service has not, is asked once (a 204); its photo is not.
        #expect(try gets(backend).dropFirst(count).map { "\($0.path) \($0.status)" } == ["/Inspections(9)/signature 204"])
        #expect(try store.execute(method: "GET", url: "Inspections(9)/photo").body == content)
        #expect(try store.check().isEmpty)
    }

    /// A stream property changed on the service without its entity's ETag (`/_media_quiet_change`):
    /// its `Prop@odata.mediaEtag` changes, so the next (delta) download fetches that one stream
    /// and asks nothing of the entity's other stream nor of the other entities.
    @Test func aStreamPropertyChangedWithoutItsEntityETagIsFetchedByItsMediaETag() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 3_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let served = try gets(backend).count
        let quiet = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_quiet_change",
                                                 body: Array(#"{"set": "Inspections", "key": 2, "property": "photo", "content": "new photo", "type": "image/png"}"#.utf8)))
        #expect(quiet.status == 204)
        _ = try store.download()
        #expect(try gets(backend).dropFirst(served).map { "\($0.path) \($0.status)" } == ["/Inspections(2)/photo 200"])
        #expect(try store.execute(method: "GET", url: "Inspections(2)/photo").body == Array("new photo".utf8))
        _ = try store.download(full: true)
        #expect(try gets(backend).count == served + 1)
        #expect(try store.check().isEmpty)
    }

    /// A format-12 store (streams keyed by their entity alone) keeps its media streams when it
    /// opens as format 13: they are the entities' own streams (`property` '').
    @Test func aFormat12StoreKeepsItsStreamsAsTheEntitiesOwn() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 10))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("""
                DROP TABLE ood_stream;
                CREATE TABLE ood_stream (entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, file TEXT NOT NULL UNIQUE,
                    state TEXT NOT NULL, etag TEXT, entity_etag TEXT, content_type TEXT, length INTEGER, sha256 TEXT,
                    received INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (entity_set, entity_id));
                INSERT INTO ood_stream VALUES ('Documents', 7, 's0123', 'complete', '"m"', 'W/"1"', 'text/plain', 5, 'ab', 0);
                UPDATE ood_store_info SET value = '12' WHERE key = 'format_version'
                """)
        }
        store.close()
        let reopened = try LocalStore.open(path: folder.file("media.store"))
        defer { reopened.close() }
        #expect(try reopened.file.formatVersion() == StoreFormat.currentVersion)
        let records = try reopened.file.withConnection { db throws(ODataError) in try StreamTable.all(in: db) }
        #expect(records == [StreamRecord(entitySet: "Documents", entityID: 7, property: "", file: "s0123", state: .complete, etag: "\"m\"",
                                         entityETag: "W/\"1\"", contentType: "text/plain", length: 5, sha256: "ab")])
    }

    /// One media entity, or one entity with stream properties, as a defining request of its own:
    /// its streams come with it and no other; a stream's URL is refused with the way to ask for it.
    @Test func aSingleEntityIsADefiningRequestOfItsOwnWithItsStreams() throws {
        let backend = try TestBackend.start(.v4, media: (count: 3, size: 9_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let (_, metadata) = try backend.get("$metadata", headers: ["Accept": "application/xml"])
        let model = String(decoding: metadata, as: UTF8.self)
        let store = try LocalStore.create(path: folder.file("one.store"), metadata: model,
                                          definingRequests: [DefiningRequest(name: "Scan", url: "Documents(2)", retrievesStreams: true),
                                                             DefiningRequest(name: "Visit", url: "Inspections(3)", retrievesStreams: true)],
                                          serviceRoot: backend.serviceRoot)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try gets(backend).map { "\($0.path) \($0.status)" }.sorted()
                == ["/Documents(2)/$value 200", "/Inspections(3)/photo 200", "/Inspections(3)/signature 204"])
        #expect(try store.streamFile(url: "Documents(2)").length == 9_000)
        #expect(try store.streamFile(url: "Inspections(3)/photo").length == 9_000)
        #expect(throws: ODataError.self) { try store.streamFile(url: "Documents(1)") }
        _ = try store.download()
        #expect(try gets(backend).count == 3)
        for url in ["Documents(2)/$value", "Inspections(3)/photo"] {
            let refused = #expect(throws: ODataError.self) {
                try LocalStore.create(path: folder.file("refused.store"), metadata: model,
                                      definingRequests: [DefiningRequest(name: "Stream", url: url, retrievesStreams: true)],
                                      serviceRoot: backend.serviceRoot)
            }
            #expect(refused?.code == .unsupported && refused?.message.contains("make its entity") == true)
        }
    }
}
