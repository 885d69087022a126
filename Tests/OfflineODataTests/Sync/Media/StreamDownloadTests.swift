#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Media streams downloaded with their defining requests (issue 35, docs/MEDIA.md), against the
/// real V4 service serving the media model (`Tests/backends/models/media-v4.xml`).
@Suite(.serialized) struct StreamDownloadTests: MediaSuite {
    /// A store of the media service with `Documents` retrieving streams and `Notes` not.
    private func makeStore(_ backend: TestBackend, in folder: TemporaryFolder,
                           limits: StreamLimits = StreamLimits()) throws -> LocalStore {
        let (status, metadata) = try backend.get("$metadata", headers: ["Accept": "application/xml"])
        #expect(status == 200)
        let store = try LocalStore.create(path: folder.file("media.store"), metadata: String(decoding: metadata, as: UTF8.self),
                                          definingRequests: [DefiningRequest(name: "Documents", url: "Documents", retrievesStreams: true),
                                                             DefiningRequest(name: "Notes", url: "Notes")],
                                          serviceRoot: backend.serviceRoot)
        try store.setStreamLimits(limits)
        return store
    }

    private func serviceBytes(_ backend: TestBackend, _ url: String) throws -> [UInt8] {
        let (status, body) = try backend.get(url, headers: ["Accept": "*/*"])
        #expect(status == 200)
        return body
    }

    private func sha256(_ bytes: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    @Test func aDefiningRequestThatRetrievesStreamsDownloadsThemAsFilesWithTheirRecords() throws {
        let backend = try TestBackend.start(.v4, media: (count: 4, size: 150_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try gets(backend).count == 4)
        for key in 1...4 {
            let stream = try store.streamFile(url: "Documents(\(key))/$value")
            let served = try serviceBytes(backend, "Documents(\(key))/$value")
            #expect(stream.length == 150_000)
            #expect(stream.contentType == "application/pdf")
            #expect(stream.etag?.hasPrefix("\"") == true)
            #expect(fileBytes(stream.path) == served)
            #expect(stream.sha256 == sha256(served))
            #expect(stream.path.hasPrefix(store.streamFolder.path + "/s"))
        }
        // Plain entity sets and unknown keys have no stream.
        #expect(throws: ODataError.self) { try store.streamFile(url: "Notes(1)/$value") }
        let missing = #expect(throws: ODataError.self) { try store.streamFile(url: "Documents(99)/$value") }
        #expect(missing?.code == .notFound)
        // Nothing but the four files; `store check` agrees.
        #expect(store.streamFolder.names().count == 4)
        #expect(try store.check().isEmpty)
    }

    /// `GET Documents(k)/$value` through the ordinary request API: the stream's bytes from its
    /// file, with its content type and media ETag, offline (no request reaches the service).
    @Test func aMediaValueReadThroughTheRequestAPIAnswersFromTheStreamFile() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 70_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let streamsSent = try gets(backend).count
        for key in 1...2 {
            let answer = try store.execute(method: "GET", url: "Documents(\(key))/$value")
            let stream = try store.streamFile(url: "Documents(\(key))/$value")
            #expect(answer.status == 200 && answer.contentType == "application/pdf")
            #expect(answer.body == fileBytes(stream.path) && sha256(answer.body) == stream.sha256)
            #expect(answer.header("ETag") == stream.etag && stream.etag != nil)
            #expect(answer.shape.kind == .value && answer.shape.entitySet == "Documents" && answer.shape.propertyType == "Edm.Stream")
        }
        #expect(try gets(backend).count == streamsSent)
        // Errors: a key the store lacks, a set without streams, no key, something after $value.
        #expect(throws: ODataError.self) { try store.execute(method: "GET", url: "Documents(42)/$value") }
        for url in ["Notes(1)/$value", "Documents/$value"] {
            let refused = #expect(throws: ODataError.self) { try store.execute(method: "GET", url: url) }
            #expect(refused?.code == .semantic)
        }

        // A store whose defining request does not retrieve the streams: a clear error.
        let (_, metadata) = try backend.get("$metadata", headers: ["Accept": "application/xml"])
        let plain = try LocalStore.create(path: folder.file("plain.store"), metadata: String(decoding: metadata, as: UTF8.self),
                                          definingRequests: [DefiningRequest(name: "Documents", url: "Documents")],
                                          serviceRoot: backend.serviceRoot)
        defer { plain.close() }
        _ = try plain.download()
        let missing = #expect(throws: ODataError.self) { try plain.execute(method: "GET", url: "Documents(1)/$value") }
        #expect(missing?.code == .notFound && missing?.message.contains("not downloaded") == true)
    }

    @Test func aSecondDownloadFetchesOnlyTheStreamThatChanged() throws {
        let backend = try TestBackend.start(.v4, media: (count: 50, size: 2_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try gets(backend).count == 50)
        let before = try store.streamFile(url: "Documents(7)/$value")

        // The service changes one of the 50 streams; the next (delta) download fetches that one.
        let put = try backend.send(HTTPRequest(method: "PUT", url: backend.url("Documents(7)/$value"),
                                               headers: [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("If-Match", "*")],
                                               body: Array("changed on the service".utf8)))
        #expect(put.status == 204)
        let outcomes = try store.download()
        #expect(outcomes.first?.isDelta == true)
        let sent = try gets(backend)
        #expect(sent.count == 51)
        #expect(sent.last?.path == "/Documents(7)/$value")
        let after = try store.streamFile(url: "Documents(7)/$value")
        #expect(fileBytes(after.path) == Array("changed on the service".utf8))
        #expect(after.contentType == "text/plain")
        #expect(after.etag != before.etag)
        // A full download that changes nothing fetches nothing.
        _ = try store.download(full: true)
        #expect(try gets(backend).count == 51)
        #expect(try store.check().isEmpty)
    }

    /// A service whose entity ETag does not cover its stream (`/_media_quiet_change`): the store
    /// judges a stream by the media ETag the payload announces (`@odata.mediaEtag`), so the one
    /// stream of 50 that changed is fetched and no other; and an entity whose properties changed
    /// while its stream did not costs no request for the stream (not even a 304).
    @Test func aStreamChangedWithoutItsEntityETagIsFetchedByItsMediaETag() throws {
        let backend = try TestBackend.start(.v4, media: (count: 50, size: 2_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try gets(backend).count == 50)
        let before = try store.streamFile(url: "Documents(7)/$value")
        let (_, entityBefore) = try backend.get("Documents(7)")
        let etagBefore = try JSONValue.parse(entityBefore)["@odata.etag"]?.stringValue
        #expect(etagBefore != nil)

        let quiet = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_quiet_change",
                                                 body: Array(#"{"set": "Documents", "key": 7, "content": "changed quietly", "type": "text/plain"}"#.utf8)))
        #expect(quiet.status == 204)
        let (_, entityAfter) = try backend.get("Documents(7)")
        let parsed = try JSONValue.parse(entityAfter)
        #expect(parsed["@odata.etag"]?.stringValue == etagBefore)  // the entity's ETag stayed
        #expect(parsed["@odata.mediaEtag"]?.stringValue != before.etag)
        let outcomes = try store.download()
        #expect(outcomes.first?.isDelta == true)
        let sent = try gets(backend).dropFirst(50).map { "\($0.path) \($0.status)" }
        #expect(sent == ["/Documents(7)/$value 200"])
        let after = try store.streamFile(url: "Documents(7)/$value")
        #expect(fileBytes(after.path) == Array("changed quietly".utf8))
        #expect(after.etag == parsed["@odata.mediaEtag"]?.stringValue)

        // Neither changes: a delta and a full download fetch nothing, and ask for nothing.
        _ = try store.download()
        _ = try store.download(full: true)
        #expect(try gets(backend).count == 51)

        // The entity changes (a new ETag), its stream does not: no request for the stream.
        let patch = try backend.send(HTTPRequest(method: "PATCH", url: backend.url("Documents(8)"),
                                                 headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                 body: Array(#"{"title": "renamed"}"#.utf8)))
        #expect(patch.status == 204 || patch.status == 200)
        _ = try store.download()
        #expect(String(decoding: try store.execute(method: "GET", url: "Documents(8)").body, as: UTF8.self).contains("renamed"))
        #expect(try gets(backend).count == 51)
        #expect(try store.check().isEmpty)
    }

    /// A service that sends its streams without an `ETag` header. A stream's first download comes
    /// before any announcement is kept for it (none is kept without a recorded stream), so it is
    /// recorded without a media ETag: a delta without its entity leaves it alone (the entity's
    /// ETag decides), and the next payload that announces its media ETag (a full download, or
    /// its entity in a delta) has it fetched once more, taking the announced ETag. From then on
    /// that ETag decides.
    @Test func aStreamAnsweredWithoutAnETagTakesTheAnnouncedOne() throws {
        let backend = try TestBackend.start(.v4, media: (count: 5, size: 500))
        defer { backend.stop() }
        let hostile = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile",
                                                   body: Array(#"{"no_etag": true}"#.utf8)))
        #expect(hostile.status == 204)
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        #expect(try gets(backend).count == 5)
        #expect(try store.streamFile(url: "Documents(2)/$value").etag == nil)
        _ = try store.download()
        #expect(try gets(backend).count == 5)
        let (_, entity) = try backend.get("Documents(2)")
        let announced = try JSONValue.parse(entity)["@odata.mediaEtag"]?.stringValue
        #expect(announced != nil)
        _ = try store.download(full: true)
        #expect(try gets(backend).count == 10)
        #expect(try store.streamFile(url: "Documents(2)/$value").etag == announced)
        _ = try store.download(full: true)
        _ = try store.download()
        #expect(try gets(backend).count == 10)
        // The content changes, the entity's ETag does not: the delta brings the entity with its
        // new media ETag, which finds the stream changed; the answer has no ETag, the store keeps
        // the announced one.
        let quiet = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_quiet_change",
                                                 body: Array(#"{"set": "Documents", "key": 2, "content": "new", "type": "text/plain"}"#.utf8)))
        #expect(quiet.status == 204)
        let (_, changed) = try backend.get("Documents(2)")
        let announcedAfter = try JSONValue.parse(changed)["@odata.mediaEtag"]?.stringValue
        #expect(announcedAfter != nil && announcedAfter != announced)
        _ = try store.download()
        #expect(try gets(backend).dropFirst(10).map(\.path) == ["/Documents(2)/$value"])
        let after = try store.streamFile(url: "Documents(2)/$value")
        #expect(fileBytes(after.path) == Array("new".utf8))
        #expect(after.etag == announcedAfter)
        _ = try store.download()
        #expect(try gets(backend).count == 11)
        #expect(try store.check().isEmpty)
    }

    /// A format-13 store (no announced media ETags) opens as format 14 with its streams as they
    /// were, and the entity's ETag decides for them until a payload announces a media ETag.
    @Test func aFormat13StoreKeepsItsStreamsAndJudgesThemByTheEntityETag() throws {
        let backend = try TestBackend.start(.v4, media: (count: 3, size: 1_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        _ = try store.download()
        let records = try store.file.withConnection { db throws(ODataError) in try StreamTable.all(in: db) }
        #expect(records.count == 3 && records.allSatisfy { $0.announcedETag == nil })
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("""
                CREATE TABLE ood_stream_13 AS SELECT entity_set, entity_id, property, file, state, etag, entity_etag,
                    content_type, length, sha256, received FROM ood_stream;
                DROP TABLE ood_stream;
                CREATE TABLE ood_stream (entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, property TEXT NOT NULL DEFAULT '',
                    file TEXT NOT NULL UNIQUE, state TEXT NOT NULL, etag TEXT, entity_etag TEXT, content_type TEXT, length INTEGER,
                    sha256 TEXT, received INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (entity_set, entity_id, property));
                INSERT INTO ood_stream SELECT * FROM ood_stream_13;
                DROP TABLE ood_stream_13;
                UPDATE ood_store_info SET value = '13' WHERE key = 'format_version'
                """)
        }
        store.close()
        let reopened = try LocalStore.open(path: folder.file("media.store"))
        defer { reopened.close(); removeStreams(reopened) }
        #expect(try reopened.file.formatVersion() == 14)
        #expect(try reopened.file.withConnection { db throws(ODataError) in try StreamTable.all(in: db) } == records)
        #expect(try reopened.check().isEmpty)
        // The next download announces the media ETags, equal to the recorded ones: nothing fetched.
        _ = try reopened.download(full: true)
        #expect(try gets(backend).count == 3)
        let announced = try reopened.file.withConnection { db throws(ODataError) in try StreamTable.all(in: db) }
        #expect(announced.map(\.announcedETag) == records.map(\.etag))
    }

    @Test func anEntityThatLeavesTheStoreTakesItsStreamFileWithIt() throws {
        let backend = try TestBackend.start(.v4, media: (count: 3, size: 1_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let gone = try store.streamFile(url: "Documents(2)/$value")
        #expect(access(gone.path, F_OK) == 0)
        let delete = try backend.send(HTTPRequest(method: "DELETE", url: backend.url("Documents(2)"), headers: [HTTPHeader("If-Match", "*")]))
        #expect(delete.status == 204)
        _ = try store.download(full: true)
        #expect(access(gone.path, F_OK) != 0)
        #expect(store.streamFolder.names().count == 2)
        #expect(throws: ODataError.self) { try store.streamFile(url: "Documents(2)/$value") }
        #expect(try store.check().isEmpty)
    }

    @Test func anInterruptedStreamResumesWhereItsFileEnds() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 300_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        // As a download killed after 120,000 bytes leaves it: the row says partial, the temporary
        // file has the first bytes and the ETag of the answer they came from.
        let served = try serviceBytes(backend, "Documents(1)/$value")
        let etag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents(1)/$value"))).header("ETag")
        _ = try store.load(pages: [Array(#"{"value":[{"id":1,"title":"document 1","owner":"field","@odata.etag":"W/\"1\""}]}"#.utf8)],
                           definingRequest: "Documents")
        let name = "s000000000000000000000001"
        try store.file.withConnection { db throws(ODataError) in
            let table = store.schema.table(forEntitySet: "Documents")?.quotedName ?? ""
            let id = try db.scalarInt(#"SELECT "_ood_id" FROM "# + table) ?? 0
            try StreamTable.save(StreamRecord(entitySet: "Documents", entityID: id, file: name, state: .partial), in: db)
        }
        try store.streamFolder.ensureExists()
        let part = try store.streamFolder.openPart(name, fresh: true)
        _ = served.prefix(120_000).withUnsafeBytes { StreamFolder.writeAll(part, $0) }
        close(part)
        store.streamFolder.writePartETag(etag, for: name)

        _ = try store.download()
        let sent = try gets(backend)
        #expect(sent.last?.status == 206)
        #expect(sent.last?.bytes == 180_000)
        let stream = try store.streamFile(url: "Documents(1)/$value")
        #expect(fileBytes(stream.path) == served)
        #expect(stream.sha256 == sha256(served))
        #expect(store.streamFolder.names() == [name])
    }

    /// A kept part as a download killed after `kept` bytes of the answer with ETag `etag` leaves it.
    private func keepPart(_ store: LocalStore, bytes: ArraySlice<UInt8>, etag: String?) throws -> String {
        _ = try store.load(pages: [Array(#"{"value":[{"id":1,"title":"document 1","owner":"field","@odata.etag":"W/\"1\""}]}"#.utf8)],
                           definingRequest: "Documents")
        let name = "s000000000000000000000002"
        try store.file.withConnection { db throws(ODataError) in
            let table = store.schema.table(forEntitySet: "Documents")?.quotedName ?? ""
            let id = try db.scalarInt(#"SELECT "_ood_id" FROM "# + table) ?? 0
            try StreamTable.save(StreamRecord(entitySet: "Documents", entityID: id, file: name, state: .partial), in: db)
        }
        try store.streamFolder.ensureExists()
        let part = try store.streamFolder.openPart(name, fresh: true)
        _ = Array(bytes).withUnsafeBytes { StreamFolder.writeAll(part, $0) }
        close(part)
        store.streamFolder.writePartETag(etag, for: name)
        return name
    }

    @Test func aServiceThatIgnoresRangesOrChangedTheStreamSendsItWholeAndTheFileStartsOver() throws {
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 200_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        let served = try serviceBytes(backend, "Documents(1)/$value")
        let etag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents(1)/$value"))).header("ETag")
        // Ranges ignored: a 200 of the whole stream replaces the kept part.
        _ = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile", body: Array(#"{"no_ranges": true}"#.utf8)))
        let name = try keepPart(store, bytes: served.prefix(50_000), etag: etag)
        _ = try store.download()
        #expect(try gets(backend).last.map { [$0.status, $0.bytes] } == [200, 200_000])
        #expect(fileBytes(store.streamFolder.filePath(name)) == served)

        // The stream changed since the part was kept: If-Range no longer matches, a 200 of the new one.
        _ = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile", body: Array("{}".utf8)))
        let other = TemporaryFolder()
        let second = try makeStore(backend, in: other)
        defer { second.close(); removeStreams(second) }
        let stale = try keepPart(second, bytes: served.prefix(50_000), etag: #""an older version""#)
        _ = try second.download()
        #expect(try gets(backend).last.map { [$0.status, $0.bytes] } == [200, 200_000])
        #expect(fileBytes(second.streamFolder.filePath(stale)) == served)
        #expect(try second.check().isEmpty)
    }

    @Test func aKeptPartThatIsTheWholeStreamIsMovedIntoPlaceOnA416() throws {
        // Killed after the last byte was written, before the rename: the resume's Range starts at
        // the end, the service answers 416 with the total, and the part is the stream.
        let backend = try TestBackend.start(.v4, media: (count: 1, size: 80_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        let served = try serviceBytes(backend, "Documents(1)/$value")
        let etag = try backend.send(HTTPRequest(method: "GET", url: backend.url("Documents(1)/$value"))).header("ETag")
        let name = try keepPart(store, bytes: served[...], etag: etag)
        _ = try store.download()
        #expect(try gets(backend).last.map { [$0.status, $0.bytes] } == [416, 0])
        let stream = try store.streamFile(url: "Documents(1)/$value")
        #expect(stream.path == store.streamFolder.filePath(name))
        #expect(fileBytes(stream.path) == served)
        #expect(stream.etag == etag)
        #expect(try store.check().isEmpty)
    }

    @Test func aStreamPastTheLimitsIsRefusedAndLeavesNothingOnDisk() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 100_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder, limits: StreamLimits(maximumStreamSize: 60_000))
        defer { store.close(); removeStreams(store) }
        let announced = #expect(throws: ODataError.self) { try store.download() }
        #expect(announced?.code == .http)
        #expect(announced?.message.contains("larger than the 60000 bytes") == true)
        #expect(store.streamFolder.names().isEmpty)

        // Sent without a length (close-delimited): stopped once past the limit.
        let hostile = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_media_hostile",
                                                   body: Array(#"{"unannounced": true}"#.utf8)))
        #expect(hostile.status == 204)
        let unannounced = #expect(throws: ODataError.self) { try store.download() }
        #expect(unannounced?.message.contains("larger than the 60000 bytes") == true, "\(String(describing: unannounced))")
        #expect(store.streamFolder.names().isEmpty)

        // The folder's limit counts what the store holds: one stream fits, the second does not.
        try store.setStreamLimits(StreamLimits(maximumStreamSize: 200_000, maximumFolderSize: 150_000))
        let folderFull = #expect(throws: ODataError.self) { try store.download() }
        #expect(folderFull?.message.contains("larger than the 50000 bytes") == true, "\(String(describing: folderFull))")
        #expect(store.streamFolder.names().count == 1)
        #expect(try store.check().isEmpty)
    }

    @Test func storeCheckFindsAChangedFileAndAStrayOne() throws {
        let backend = try TestBackend.start(.v4, media: (count: 2, size: 5_000))
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let store = try makeStore(backend, in: folder)
        defer { store.close(); removeStreams(store) }
        _ = try store.download()
        let stream = try store.streamFile(url: "Documents(1)/$value")
        var bytes = fileBytes(stream.path)
        bytes[10] ^= 0xFF
        let fd = open(stream.path, O_WRONLY | O_TRUNC)
        _ = bytes.withUnsafeBytes { StreamFolder.writeAll(fd, $0) }
        close(fd)
        let stray = open(store.streamFolder.path + "/stray", O_WRONLY | O_CREAT, 0o600)
        close(stray)
        let findings = try store.check()
        #expect(findings.filter { $0.check == "stream" }.count == 2)
        #expect(findings.contains { $0.message.contains("does not have the recorded SHA-256") })
        #expect(findings.contains { $0.message.contains("stray") })
        // The quick check compares lengths only.
        #expect(try store.check(quick: true).filter { $0.check == "stream" }.count == 1)
    }
}

@Suite struct SHA256Tests {
    private func digest(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(Array(text.utf8))
        return hasher.finish()
    }

    @Test func knownDigests() {
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func piecesGiveTheDigestOfTheWhole() {
        let whole = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var once = SHA256()
        once.update(whole)
        var pieces = SHA256()
        var start = 0
        for size in [1, 63, 64, 65, 127, 3, 500] {
            pieces.update(Array(whole[start..<min(whole.count, start + size)]))
            start = min(whole.count, start + size)
        }
        pieces.update(Array(whole[start...]))
        #expect(once.finish() == pieces.finish())
    }
}
