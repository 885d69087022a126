/// Brings the streams of one defining request up to date after its entities are downloaded
/// (docs/MEDIA.md), and removes the streams of entities that left the store. The streams of an
/// entity are its own (a media entity, `HasStream`) and its V4 `Edm.Stream` properties, each
/// fetched, kept and judged on its own.
///
/// Which streams to fetch is decided from what the store already has, with no request: a stream
/// is needed when the store has none, when a download of it was interrupted, or when it changed.
/// Changed means: the media ETag the entity's latest payload announced (`@odata.mediaEtag`,
/// `Prop@odata.mediaEtag`, V2 `__metadata.media_etag`, kept by the ingest as the stream's
/// ``StreamRecord/announcedETag``) differs from the stream's recorded one, compared weakly (`W/`
/// aside); and, when no payload announced one since the stream was recorded, the entity's ETag
/// differs from the one recorded with the stream (a service should change it with its stream).
/// So a service that changes one stream of 50 costs one stream, even if the entity's ETag stays,
/// and a download that changes nothing fetches none. An entity without an ETag and no announced
/// media ETag is asked for with `If-None-Match` (a `304` costs no transfer). Entities with a
/// pending local change are left alone: their stream is the app's until uploaded.
struct StreamSync {
    let download: StreamDownload
    let schema: StoreSchema
    let model: MetadataModel

    /// How many streams a run fetched, found unchanged, and how many bytes it transferred.
    struct Summary: Equatable {
        var fetched = 0
        var unchanged = 0
        var bytes: Int64 = 0
        var removed = 0
        /// Streams the service has not (a `204` or `404`: a stream property without a value).
        var absent = 0
    }

    /// The entity sets with streams (media entities, stream properties) a defining request's URL
    /// reaches (its main set and expanded ones).
    func mediaTables(ofDefiningRequestURL url: String, dialect: Dialect) -> [EntitySetTable] {
        StoreStatistics.entitySets(of: url, model: model, dialect: dialect).compactMap { name in
            guard !streamNames(of: name).isEmpty else { return nil }
            return schema.table(forEntitySet: name)
        }
    }

    /// The streams of an entity of `entitySet` (``StreamRecord/property``: `""` for its own).
    private func streamNames(of entitySet: String) -> [String] {
        model.entityType(ofEntitySet: entitySet).map(model.streamNames(of:)) ?? []
    }

    /// Fetches what the defining request `name` needs of the streams of `tables`.
    func run(definingRequest name: String, tables: [EntitySetTable],
             cancellation: HTTPCancellation?) throws(ODataError) -> Summary {
        var summary = Summary()
        let file = download.file
        for table in tables {
          for property in streamNames(of: table.entitySet) {
            let stale = try file.withConnection { db throws(ODataError) in
                try staleStreams(of: table, property: property, definingRequest: name, db: db)
            }
            for (entityID, entityETag) in stale {
                if cancellation?.isCancelled == true { throw ODataError(.aborted, "the download of streams was stopped") }
                let keyURL = try file.withConnection { db throws(ODataError) in
                    try ServedEntity.keyURL(entityID: entityID, of: table, dialect: download.dialect, in: db)
                }
                guard let keyURL else { continue }
                switch try download.fetch(table: table, entityID: entityID, property: property, keyURL: keyURL,
                                          entityETag: entityETag, cancellation: cancellation) {
                case .fetched(let bytes, let resumedFrom):
                    summary.fetched += 1
                    summary.bytes += bytes - resumedFrom
                case .unchanged: summary.unchanged += 1
                case .absent: summary.absent += 1
                }
            }
          }
        }
        summary.removed = try file.withConnection { db throws(ODataError) in try removeOrphans(db: db) }
        return summary
    }

    /// The entities of `table` held by `definingRequest` whose stream `property` is missing,
    /// unfinished or changed (the type's description), with the entity's ETag. A stream the
    /// service said it has not (``StreamRecord/State/absent``) is asked again only when a media
    /// ETag is announced for it or, without one, when the entity changed.
    private func staleStreams(of table: EntitySetTable, property: String, definingRequest: String,
                              db: SQLiteConnection) throws(ODataError) -> [(Int64, String?)] {
        let statement = try db.prepare("""
            SELECT t."_ood_id", t."_ood_etag" FROM \(table.quotedName) AS t
            JOIN ood_membership AS m ON m.defining_request = ?1 AND m.entity_set = ?2 AND m.entity_id = t."_ood_id"
            LEFT JOIN ood_stream AS s ON s.entity_set = ?2 AND s.entity_id = t."_ood_id" AND s.property = ?3
            WHERE t."_ood_change" IS NULL AND (s.entity_id IS NULL OR s.state = 'partial'
                OR (s.state IN ('complete', 'absent') AND CASE
                    WHEN s.announced_etag IS NOT NULL THEN s.etag IS NULL OR
                        (CASE WHEN substr(s.announced_etag, 1, 2) = 'W/' THEN substr(s.announced_etag, 3) ELSE s.announced_etag END)
                        IS NOT (CASE WHEN substr(s.etag, 1, 2) = 'W/' THEN substr(s.etag, 3) ELSE s.etag END)
                    ELSE t."_ood_etag" IS NULL OR s.entity_etag IS NOT t."_ood_etag" END))
            ORDER BY t."_ood_id"
            """)
        try statement.bind([.text(definingRequest), .text(table.entitySet), .text(property)])
        var stale: [(Int64, String?)] = []
        while try statement.step() { stale.append((statement.int(at: 0), statement.text(at: 1))) }
        return stale
    }

    /// Removes the files and rows of streams whose entity is no longer in the store (a full
    /// download that no longer returned it, a delta's removal, a local delete once uploaded).
    func removeOrphans(db: SQLiteConnection) throws(ODataError) -> Int {
        var removed = 0
        for table in schema.tables where !streamNames(of: table.entitySet).isEmpty {
            let statement = try db.prepare("""
                SELECT s.entity_id, s.file FROM ood_stream AS s WHERE s.entity_set = ?1
                AND NOT EXISTS (SELECT 1 FROM \(table.quotedName) AS t WHERE t."_ood_id" = s.entity_id)
                """)
            try statement.bind([.text(table.entitySet)])
            var orphans: [(Int64, String)] = []
            while try statement.step() { orphans.append((statement.int(at: 0), statement.text(at: 1) ?? "")) }
            for (entityID, file) in orphans {
                // The file first: a kill between the two leaves a row without a file, which the
                // next run removes; never a file no row names.
                if !file.isEmpty { download.folder.remove(file) }
                try StreamTable.delete(entitySet: table.entitySet, entityID: entityID, property: nil, in: db)
                removed += 1
            }
        }
        return removed
    }
}
