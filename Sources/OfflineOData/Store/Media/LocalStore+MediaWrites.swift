/// Media entities created offline (issue 35, docs/MEDIA.md): the stream copied into the stream
/// folder and the entity written and queued, in one transaction; the upload sends it as a media
/// `POST` then a `PATCH` (``MediaUpload``).
extension LocalStore {
    /// Creates a media entity of `entitySet` offline: its stream is the file at `contentPath`
    /// (copied into the stream folder a buffer at a time, within the stream limits), of
    /// `contentType`; `properties` is its JSON body without the key (the service assigns it; the
    /// store gives a provisional one until the upload). Readable offline at once (``streamFile(url:)``).
    ///
    /// - Throws: ``ODataError/Code/semantic`` for a set that is not a media set;
    ///   ``ODataError/Code/notFound`` for a file that cannot be read; ``ODataError/Code/misuse``
    ///   for a stream past the limits; the errors of the create itself (nothing is kept then).
    package func createMedia(entitySet: String, contentPath: String, contentType: String,
                             properties: [UInt8]) throws(ODataError) -> WriteOutcome {
        guard model.entityType(ofEntitySet: entitySet)?.hasStream == true else {
            throw ODataError(.semantic, "\(entitySet) is not a media entity set (its type has no HasStream=\"true\")")
        }
        guard !contentType.isEmpty, !HTTPOptions.containsLineBreakOrNUL(contentType) else {
            throw ODataError(.misuse, "a media entity needs a content type (one line of text)")
        }
        let limits = streamLimits.withLock { $0 }
        let used = try file.withConnection { db throws(ODataError) in try StreamTable.totalBytes(in: db) }
        let name = StreamFolder.newName()
        let imported = try streamFolder.importFile(contentPath, as: name,
                                                   maximum: max(0, min(limits.maximumStreamSize, limits.maximumFolderSize - used)))
        let resolved = try resolver().resolve(method: "POST", url: entitySet)
        let writer = LocalWriter(model: model, schema: schema, dialect: dialect, transactionID: nil, mergeable: false,
                                 serviceRoot: try serviceRoot() ?? "", answers: CreatedEntityAnswers(), cache: LocalWriteCache())
        do {
            return try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) -> WriteOutcome in
                    let outcome = try writer.write(resolved, body: properties, on: db)
                    try StreamTable.save(StreamRecord(entitySet: outcome.entitySet, entityID: outcome.entityID, file: name, state: .local,
                                                      etag: nil, entityETag: nil, contentType: contentType,
                                                      length: imported.length, sha256: imported.sha256), in: db)
                    return outcome
                }
            }
        } catch {
            streamFolder.remove(name)
            throw error
        }
    }
}

extension LocalStore {
    /// Whether the queue holds media entities created offline (their streams not uploaded yet).
    func hasLocalStreams() throws(ODataError) -> Bool {
        try file.withConnection { db throws(ODataError) in
            try db.scalarInt("SELECT count(*) FROM ood_stream WHERE state = 'local'") ?? 0 > 0
        }
    }
}
