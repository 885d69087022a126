import Testing
@_spi(Tool) @testable import OfflineOData

/// The queue's compaction applied to a store: the queue rewritten in one transaction, the
/// entities of cancelled creates gone, the per-request mark kept, a format-7 store migrated.
@Suite struct QueueCompactorTests {
    static let set = "TravelagencyCollection"

    static func makeStore(_ folder: TemporaryFolder) throws -> LocalStore {
        try LocalStore.create(path: folder.file("c.store"), metadata: LocalWriterTests.metadata)
    }

    static func write(_ store: LocalStore, _ method: String, _ url: String, _ body: String? = nil,
                      mergeable: Bool = true) throws {
        _ = try store.write(method: method, url: url, body: body.map { Array($0.utf8) }, mergeable: mergeable)
    }

    @Test func rewritesTheQueueAndForgetsCancelledEntities() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        defer { store.close() }
        try Self.write(store, "POST", Self.set, #"{"agencynum":"00000001","name":"A"}"#)
        try Self.write(store, "PATCH", "\(Self.set)('00000001')", #"{"name":"B"}"#)
        try Self.write(store, "POST", Self.set, #"{"agencynum":"00000002","name":"C"}"#)
        try Self.write(store, "PATCH", "\(Self.set)('00000002')", #"{"name":"D"}"#, mergeable: false)
        try Self.write(store, "DELETE", "\(Self.set)('00000002')")
        try Self.write(store, "POST", Self.set, #"{"agencynum":"00000003","name":"E"}"#)
        try Self.write(store, "DELETE", "\(Self.set)('00000003')")
        let compaction = try store.compactQueue()
        let queue = try store.file.queuedRequests()
        #expect(queue.map(\.method.rawValue) == ["POST", "POST", "PATCH", "DELETE"])
        #expect(queue.first?.body == #"{"agencynum":"00000001","name":"B"}"#)
        #expect(queue[2].mergeable == false, "the mark is read back from the store")
        #expect(compaction.cancelled.count == 1 && compaction.dropped.count == 3)
        #expect(try store.check().isEmpty, "the cancelled entity left the store with its requests")
        let rows = try store.file.withConnection { db throws(ODataError) in
            try db.scalarInt("SELECT count(*) FROM \"es/TravelagencyCollection\"")
        }
        #expect(rows == 2, "00000003 is gone; 00000002 waits for its DELETE")
        #expect(try store.compactQueue().dropped.isEmpty, "a compacted queue stays as it is")
    }

    @Test func aFormat7StoreGainsTheMarkColumnWhenOpened() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        try Self.write(store, "POST", Self.set, #"{"agencynum":"00000001","name":"A"}"#)
        try store.file.withConnection { db throws(ODataError) in
            try db.execute("""
                ALTER TABLE ood_request_queue DROP COLUMN no_merge; ALTER TABLE ood_error_archive DROP COLUMN no_merge;
                DROP TABLE ood_download_statistics; DROP TABLE ood_upload_statistics; DROP TABLE ood_sync_log;
                DROP TABLE ood_download_resume; DROP TABLE ood_download_page; DROP TABLE ood_conflict;
                DROP TABLE ood_stream; ALTER TABLE ood_defining_request DROP COLUMN streams;
                UPDATE ood_store_info SET value = '7' WHERE key = 'format_version'
                """)
        }
        store.close()
        let reopened = try LocalStore.open(path: folder.file("c.store"))
        defer { reopened.close() }
        #expect(try reopened.file.formatVersion() == StoreFormat.currentVersion)
        #expect(try reopened.file.queuedRequests().map(\.mergeable) == [true])
    }
}
