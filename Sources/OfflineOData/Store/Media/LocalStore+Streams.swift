/// Media streams of the offline store (issue 35, docs/MEDIA.md): downloading them with their
/// defining requests, finding a stream's file for a local read, and checking the folder.
extension LocalStore {
    /// The folder beside the store file that holds its streams.
    package var streamFolder: StreamFolder { StreamFolder(storePath: file.path) }

    /// Sets how much room streams may take, for the downloads and local writes after this call.
    package func setStreamLimits(_ limits: StreamLimits) throws(ODataError) {
        try limits.validate()
        streamLimits.withLock { $0 = limits }
    }

    /// Fetches the streams the defining request `request` needs (``StreamSync``), after its
    /// entities are committed; a stream that fails leaves the others fetched so far in place.
    @discardableResult
    func downloadStreams(of request: DefiningRequest, cancellation: HTTPCancellation?) throws(ODataError) -> StreamSync.Summary {
        let sync = StreamSync(download: StreamDownload(transport: try serviceTransport(), serviceRoot: try requireServiceRoot(),
                                                       dialect: dialect, folder: streamFolder,
                                                       limits: streamLimits.withLock { $0 }, file: file),
                              schema: schema, model: model)
        let tables = sync.mediaTables(ofDefiningRequestURL: request.url, dialect: dialect)
        return try sync.run(definingRequest: request.name, tables: tables, cancellation: cancellation)
    }

    /// The file holding the stream `url` addresses (a media entity, `Documents(1)/$value` or
    /// `Documents(1)`; a V4 stream property, `Inspections(1)/photo`), as the store has it: never
    /// read into memory here.
    ///
    /// - Throws: ``ODataError/Code/notFound`` when the store has no such entity or no stream for
    ///   it (not downloaded: its defining request does not retrieve streams, or the download of
    ///   it has not finished); ``ODataError/Code/semantic`` when `url` does not address one media
    ///   entity by its key.
    package func streamFile(url: String) throws(ODataError) -> MediaStream {
        let (table, id, property) = try locateStream(url: url)
        return try file.withReadConnection { db, _ throws(ODataError) -> MediaStream in
            guard let record = try StreamTable.record(entitySet: table.entitySet, entityID: id, property: property, in: db),
                  let length = record.length else {
                let what = property.isEmpty ? "" : " property \(property)"
                throw ODataError(.notFound, "the store has no stream\(what) for this entity of \(table.entitySet) (not downloaded yet, "
                                 + "or the service has none)")
            }
            return MediaStream(path: streamFolder.filePath(record.file), length: length,
                               contentType: record.contentType ?? "application/octet-stream",
                               etag: record.etag, sha256: record.sha256)
        }
    }

    /// The table, local id and stream (``StreamRecord/property``: `""` for a media entity's own)
    /// that `url` addresses by the entity's key.
    func locateStream(url: String) throws(ODataError) -> (EntitySetTable, Int64, String) {
        var entityURL = url
        if entityURL.hasSuffix("/$value") { entityURL.removeLast("/$value".count) }
        let bound = try ODataBinder(model: model, dialect: dialect).bind(ODataURLParser(dialect: dialect).parse(entityURL))
        let addressed: String?
        switch bound.target {
        case .entity: addressed = ""
        case .streamProperty(let name) where !url.hasSuffix("/$value"): addressed = name
        default: addressed = nil
        }
        guard let property = addressed, let path = bound.path, path.steps.isEmpty, path.rootKey != nil,
              let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.semantic, "a stream is addressed as one media entity by its key, like Documents(1)/$value, "
                             + "or as a stream property of one entity, like Inspections(1)/photo")
        }
        guard !property.isEmpty || model.entityType(ofEntitySet: path.entitySet)?.hasStream == true else {
            throw ODataError(.semantic, "\(path.entitySet) is not a media entity set (its type has no HasStream=\"true\")")
        }
        let id = try file.withReadConnection { db, _ throws(ODataError) in
            try LocalUndo.entityID(key: table.keyValues(of: path), in: table, on: db)
        }
        guard let id else { throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store") }
        return (table, id, property)
    }
}
