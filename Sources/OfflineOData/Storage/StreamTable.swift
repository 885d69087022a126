/// What the store knows of one stream (a row of `ood_stream`, format 14): a media entity's own
/// stream or one of its V4 `Edm.Stream` properties; which file in the stream folder holds it and
/// what the service said of it.
package struct StreamRecord: Sendable, Equatable {
    package enum State: String, Sendable {
        /// A download in progress: `received` bytes are in the file's temporary name.
        case partial
        /// The whole stream is in the file, as the service sent it.
        case complete
        /// Written offline, not yet uploaded.
        case local
        /// A stream property the service has no value for (it answered `204` or `404`): no file.
        /// Asked again once the entity's ETag changes, not at every download.
        case absent
    }

    package var entitySet: String
    package var entityID: Int64
    /// The `Edm.Stream` property the stream is the value of; `""` for the media entity's own
    /// stream (`Set(key)/$value`).
    package var property: String = ""
    /// The file's name in the stream folder (``StreamFolder``), chosen by the engine.
    package var file: String
    package var state: State
    /// The media ETag (V4 `ETag` of `$value`, or the one the partial download started from).
    package var etag: String?
    /// The entity's own ETag when the stream was fetched: a later download that leaves it as it
    /// was leaves the stream alone.
    package var entityETag: String?
    package var contentType: String?
    /// Bytes, once complete.
    package var length: Int64?
    /// 64 hex digits, once complete.
    package var sha256: String?
    /// Bytes in the temporary file of a partial download.
    package var received: Int64 = 0
    /// The media ETag the latest downloaded payload announced for the stream, since the stream was
    /// recorded with its ETag (``StreamTable/announce(_:entitySet:entityID:property:in:)``); nil when
    /// none did. Read only: ``StreamTable/save(_:in:)`` keeps it while `etag` stays, and clears it
    /// when `etag` changes (that announcement is settled).
    package var announcedETag: String?
}

/// The `ood_stream` table. Every value is a bound parameter.
enum StreamTable {
    private static let savedColumns = "entity_set, entity_id, file, state, etag, entity_etag, content_type, length, sha256, received, property"
    private static let columns = savedColumns + ", announced_etag"

    /// The stream of `property` (`""`: the media entity's own stream) of one entity.
    static func record(entitySet: String, entityID: Int64, property: String = "", in db: SQLiteConnection) throws(ODataError) -> StreamRecord? {
        try db.withCachedStatement("SELECT \(columns) FROM ood_stream WHERE entity_set = ?1 AND entity_id = ?2 AND property = ?3") {
            row throws(ODataError) -> StreamRecord? in
            try row.bind([.text(entitySet), .integer(entityID), .text(property)])
            guard try row.step() else { return nil }
            return read(row)
        }
    }

    static func all(in db: SQLiteConnection) throws(ODataError) -> [StreamRecord] {
        let statement = try db.prepare("SELECT \(columns) FROM ood_stream ORDER BY entity_set, entity_id, property")
        try statement.bind([])
        var records: [StreamRecord] = []
        while try statement.step() { records.append(read(statement)) }
        return records
    }

    static func save(_ record: StreamRecord, in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("""
            INSERT INTO ood_stream (\(savedColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT (entity_set, entity_id, property) DO UPDATE SET file = excluded.file, state = excluded.state,
                announced_etag = CASE WHEN excluded.etag IS ood_stream.etag THEN ood_stream.announced_etag END,
                etag = excluded.etag, entity_etag = excluded.entity_etag, content_type = excluded.content_type,
                length = excluded.length, sha256 = excluded.sha256, received = excluded.received
            """) { statement throws(ODataError) in
            try statement.run([
                .text(record.entitySet), .integer(record.entityID), .text(record.file), .text(record.state.rawValue),
                record.etag.map(SQLValue.text) ?? .null, record.entityETag.map(SQLValue.text) ?? .null,
                record.contentType.map(SQLValue.text) ?? .null, record.length.map(SQLValue.integer) ?? .null,
                record.sha256.map(SQLValue.text) ?? .null, .integer(record.received), .text(record.property),
            ])
        }
    }

    /// Forgets the stream of `property`, or with nil every stream of the entity (it is gone).
    static func delete(entitySet: String, entityID: Int64, property: String?, in db: SQLiteConnection) throws(ODataError) {
        guard let property else {
            try db.withCachedStatement("DELETE FROM ood_stream WHERE entity_set = ?1 AND entity_id = ?2") {
                statement throws(ODataError) in try statement.run([.text(entitySet), .integer(entityID)])
            }
            return
        }
        try db.withCachedStatement("DELETE FROM ood_stream WHERE entity_set = ?1 AND entity_id = ?2 AND property = ?3") {
            statement throws(ODataError) in try statement.run([.text(entitySet), .integer(entityID), .text(property)])
        }
    }

    /// Every stream of one entity (its own and its stream properties').
    static func records(entitySet: String, entityID: Int64, in db: SQLiteConnection) throws(ODataError) -> [StreamRecord] {
        let statement = try db.prepare("SELECT \(columns) FROM ood_stream WHERE entity_set = ?1 AND entity_id = ?2 ORDER BY property")
        try statement.bind([.text(entitySet), .integer(entityID)])
        var records: [StreamRecord] = []
        while try statement.step() { records.append(read(statement)) }
        return records
    }

    /// The entity changed by this store's own upload (its new ETag `etag`): a stream that was
    /// current with the version replaced stays current, so the next download does not fetch it
    /// again. Run before the entity's row takes the new ETag.
    /// `quotedTable` is the entity set's table name, quoted.
    static func followEntityETag(_ etag: String, entitySet: String, entityID: Int64, quotedTable: String,
                                 in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("""
            UPDATE ood_stream SET entity_etag = ?1 WHERE entity_set = ?2 AND entity_id = ?3 AND state = 'complete'
                AND entity_etag IS (SELECT "_ood_etag" FROM \(quotedTable) WHERE "_ood_id" = ?3)
            """).run([.text(etag), .text(entitySet), .integer(entityID)])
    }

    /// Records the media ETag a downloaded payload announced for a stream the store has (nil: the
    /// payload announced none), which the next stream run compares with the recorded one
    /// (``StreamSync``). A stream without a row has nothing to compare: it is fetched anyway.
    static func announce(_ etag: String?, entitySet: String, entityID: Int64, property: String,
                         in db: SQLiteConnection) throws(ODataError) {
        try db.withCachedStatement("""
            UPDATE ood_stream SET announced_etag = ?4 WHERE entity_set = ?1 AND entity_id = ?2 AND property = ?3
            """) { statement throws(ODataError) in
            try statement.run([.text(entitySet), .integer(entityID), .text(property), etag.map(SQLValue.text) ?? .null])
        }
    }

    /// The bytes the recorded streams take (complete and local ones, and what partial ones received).
    static func totalBytes(in db: SQLiteConnection) throws(ODataError) -> Int64 {
        try db.scalarInt("SELECT coalesce(sum(CASE WHEN state = 'partial' THEN received ELSE coalesce(length, 0) END), 0) FROM ood_stream") ?? 0
    }

    private static func read(_ row: Statement) -> StreamRecord {
        var record = StreamRecord(entitySet: row.text(at: 0) ?? "", entityID: row.int(at: 1), file: row.text(at: 2) ?? "",
                     state: StreamRecord.State(rawValue: row.text(at: 3) ?? "") ?? .partial,
                     etag: row.text(at: 4), entityETag: row.text(at: 5), contentType: row.text(at: 6),
                     length: row.isNull(at: 7) ? nil : row.int(at: 7), sha256: row.text(at: 8), received: row.int(at: 9))
        record.property = row.text(at: 10) ?? ""
        record.announcedETag = row.text(at: 11)
        return record
    }
}
