/// Replacing a stream offline (issue 35, docs/MEDIA.md), a media entity's or a V4 stream
/// property's: the new content is copied into the stream folder and a `PUT Set(key)/$value` (or
/// `PUT Set(key)/Prop`) queued, in one transaction; the upload sends it streamed from the file
/// (``MediaUpload/replace(_:stream:csrf:cancellation:)``).
extension LocalStore {
    /// Replaces the stream `url` addresses (a media entity, `Documents(1)` or `Documents(1)/$value`;
    /// a stream property, `Inspections(1)/photo`) with the file at `contentPath`, of
    /// `contentType`. Readable offline at once. A media entity created offline and not uploaded
    /// yet keeps its one queued create, which then sends the new content; any other stream gets a
    /// queued `PUT` (one per stream: a pending one sends the file as it is when it leaves), sent with the
    /// entity's ETag as `If-Match` like any update of it (an entity changed on the service
    /// meanwhile is a conflict, not overwritten).
    ///
    /// - Throws: ``ODataError/Code/notFound`` for an entity the store lacks or a file that cannot
    ///   be read; ``ODataError/Code/semantic`` for a URL that is not one media entity;
    ///   ``ODataError/Code/misuse`` for a stream past the limits. Nothing is changed then.
    package func replaceStream(url: String, contentPath: String, contentType: String) throws(ODataError) -> WriteOutcome {
        guard !contentType.isEmpty, !HTTPOptions.containsLineBreakOrNUL(contentType) else {
            throw ODataError(.misuse, "a stream needs a content type (one line of text)")
        }
        let (table, id, property) = try locateStream(url: url)
        let limits = streamLimits.withLock { $0 }
        let (used, old) = try file.withConnection { db throws(ODataError) in
            (try StreamTable.totalBytes(in: db), try StreamTable.record(entitySet: table.entitySet, entityID: id, property: property, in: db))
        }
        let freed = old?.state == .partial ? old?.received ?? 0 : old?.length ?? 0
        let name = StreamFolder.newName()
        let imported = try streamFolder.importFile(contentPath, as: name,
                                                   maximum: max(0, min(limits.maximumStreamSize, limits.maximumFolderSize - used + freed)))
        let queued: Int64?
        do {
            queued = try file.withConnection { db throws(ODataError) -> Int64? in
                try db.transaction { () throws(ODataError) -> Int64? in
                    // The media ETag the replaced stream had: the service's version the PUT replaces.
                    let replaced = old?.state == .partial ? nil : old?.etag
                    try StreamTable.save(StreamRecord(entitySet: table.entitySet, entityID: id, property: property, file: name, state: .local,
                                                      etag: replaced, entityETag: old?.entityETag, contentType: contentType,
                                                      length: imported.length, sha256: imported.sha256), in: db)
                    let waiting = try RequestQueueTable.requests(entitySet: table.entitySet, entityID: id, in: db)
                    let streamURLSuffix = property.isEmpty ? "/$value" : "/" + property
                    // A media create sent whose answer is not known is settled by its stream's bytes
                    // (``MediaCreateFinder``): they must stay those it sent.
                    if property.isEmpty, waiting.contains(where: { $0.method == .post && $0.state != .pending }) {
                        throw ODataError(.misuse, "the create of this entity of \(table.entitySet) was sent and its answer is not "
                                         + "known yet: upload (which settles it) before replacing its stream")
                    }
                    // A queued create or replacement sends the file as it is when it leaves: nothing more to queue.
                    if waiting.contains(where: { $0.state == .pending && (($0.method == .post && property.isEmpty)
                        || ($0.method == .put && $0.url.hasSuffix(streamURLSuffix))) }) { return nil }
                    guard let key = try ServedEntity.keyURL(entityID: id, of: table, dialect: dialect, in: db) else {
                        throw ODataError(.notFound, "\(table.entitySet): the store has no key for this entity")
                    }
                    let row = try db.prepare("SELECT \"_ood_change\" IS NULL, \"_ood_etag\" FROM \(table.quotedName) WHERE \"_ood_id\" = ?1")
                    try row.bind([.integer(id)])
                    guard try row.step() else { throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store") }
                    let (synced, entityETag) = (row.int(at: 0) == 1, row.text(at: 1))
                    if synced { try OriginalValues.save(entityID: id, of: table, on: db) }
                    try db.prepare("UPDATE \(table.quotedName) SET \"_ood_change\" = COALESCE(\"_ood_change\", ?1) WHERE \"_ood_id\" = ?2")
                        .run([.text(LocalChange.updated.rawValue), .integer(id)])
                    return try RequestQueueTable.append(QueuedRequest(method: .put, url: key + streamURLSuffix, entitySet: table.entitySet,
                                                                      entityID: id, etag: entityETag, mergeable: false), in: db)
                }
            }
        } catch {
            streamFolder.remove(name)
            throw error
        }
        if let old, old.file != name {
            streamFolder.remove(old.file)
            streamFolder.removePart(old.file)
        }
        return WriteOutcome(status: 204, entitySet: table.entitySet, entityID: id, queueID: queued ?? 0)
    }
}
