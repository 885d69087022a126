/// Fetches one stream into its file in the stream folder: a media entity's (`GET Set(key)/$value`)
/// or a V4 stream property's (`GET Set(key)/Prop`).
///
/// The file's row is saved as `partial` before the request goes out, so a process killed
/// mid-stream leaves a temporary file the store knows; the next download asks for the rest of it
/// (`Range: bytes=N-` with `If-Range: <media ETag>`): a `206` continues it, a `200` (the service
/// ignores ranges, or the stream changed) starts it over. Once whole, the file is hashed, written
/// to disk and renamed into place, and its row says `complete` with the service's ETag, content
/// type, length and SHA-256. A stream already complete is asked for again (its entity changed, or
/// has no ETag) with `If-None-Match: <media ETag>`, and a `304` leaves it as it is: an entity whose
/// properties changed, or one of whose other streams did, transfers no bytes of this one.
///
/// The URL is built from the entity's key against the service root; the service's media read link
/// is never followed, so no stream is fetched off the service's origin.
struct StreamDownload {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let folder: StreamFolder
    let limits: StreamLimits
    /// The store file; its write connection is taken for each bookkeeping step only, never while
    /// bytes travel, so local writes go on during a long stream.
    let file: StoreFile

    enum Result: Equatable {
        /// The stream was fetched (`resumedFrom` bytes of it were already on disk).
        case fetched(bytes: Int64, resumedFrom: Int64)
        /// The service said it has not changed (`304`).
        case unchanged
        /// The service has no stream (`404`, or `204`): the file is gone, and the record too (a
        /// stream property's says ``StreamRecord/State/absent``, so it is not asked for again
        /// until its entity changes).
        case absent
    }

    /// Fetches the stream `property` (`""`: the media entity's own) of entity `entityID` of `table`
    /// (key URL `keyURL`, relative to the root) whose entity ETag is `entityETag`. Each save
    /// commits on its own.
    ///
    /// A row's `etag`, `length` and `sha256` always describe the complete file under its final
    /// name, if any (reads keep seeing it while a new version downloads); `partial` says a download
    /// into the temporary file is under way, the ETag it started from beside it.
    func fetch(table: EntitySetTable, entityID: Int64, property: String = "", keyURL: String, entityETag: String?,
               cancellation: HTTPCancellation?) throws(ODataError) -> Result {
        let previous = try file.withConnection { db throws(ODataError) in
            try StreamTable.record(entitySet: table.entitySet, entityID: entityID, property: property, in: db)
        }
        var record = previous ?? StreamRecord(entitySet: table.entitySet, entityID: entityID, property: property,
                                              file: StreamFolder.newName(), state: .partial)
        let hasComplete = record.length != nil && StreamFolder.size(ofFile: folder.filePath(record.file)) != nil
        // What is on disk of an interrupted download: the temporary file's size (a kill -9 keeps
        // what was written), trusted only with the ETag its answer carried.
        let startedETag = folder.partETag(for: record.file)
        let onDisk = startedETag == nil ? 0 : StreamFolder.size(ofFile: folder.partPath(record.file)) ?? 0
        var headers = [HTTPHeader("Accept", "*/*")] + UploadRequests(serviceRoot: serviceRoot, dialect: dialect).versionHeaders
        if onDisk > 0, let startedETag {
            headers += [HTTPHeader("Range", "bytes=\(onDisk)-"), HTTPHeader("If-Range", startedETag)]
        } else if hasComplete, let etag = record.etag {
            // Asked again because the entity changed (or has no ETag): its stream may not have.
            headers.append(HTTPHeader("If-None-Match", etag))
        }
        if previous?.state != .partial {
            // Known before any byte arrives: a kill from here on leaves a file the store can find.
            record.state = .partial
            try file.withConnection { db throws(ODataError) in try StreamTable.save(record, in: db) }
        }
        let used = try file.withConnection { db throws(ODataError) in try StreamTable.totalBytes(in: db) } - (hasComplete ? record.length ?? 0 : 0)
        let budget = max(0, min(limits.maximumStreamSize, limits.maximumFolderSize - used))
        let sink = StreamFileSink(folder: folder, name: record.file, resumedFrom: onDisk, maximum: budget)
        // The stream's address from the key and the model's property name, never a link the service sent.
        let url = ServiceURL.resolve(keyURL + (property.isEmpty ? "/$value" : "/" + property), against: serviceRoot)
        let label = "GET \(redactedURL(url))"
        let response: HTTPResponse
        do {
            response = try transport.send(HTTPRequest(method: "GET", url: url, headers: headers), cancellation: cancellation, into: sink)
        } catch {
            sink.closeFile()
            if let refusal = sink.refusal { try refuse(refusal, record: record, hasComplete: hasComplete, label: label, limit: budget) }
            throw error
        }
        sink.closeFile()
        if let refusal = sink.refusal { try refuse(refusal, record: record, hasComplete: hasComplete, label: label, limit: budget) }
        switch response.status {
        case 304 where hasComplete:
            record.state = .complete
            record.entityETag = entityETag
            try file.withConnection { db throws(ODataError) in try StreamTable.save(record, in: db) }
            return .unchanged
        case 416 where onDisk > 0:
            // The kept part may be the whole stream already (killed after its last byte, before the
            // rename): `Content-Range: bytes */TOTAL` says so. Otherwise it is of no use: start over.
            let total = response.header("Content-Range").flatMap { range -> Int64? in
                guard range.hasPrefix("bytes */") else { return nil }
                return Int64(range.dropFirst("bytes */".count).filter { $0 != " " })
            }
            if total == onDisk {
                return try finish(record, etag: startedETag, contentType: folder.partContentType(for: record.file),
                                  entityETag: entityETag, resumedFrom: onDisk)
            }
            folder.removePart(record.file)
            return try fetch(table: table, entityID: entityID, property: property, keyURL: keyURL, entityETag: entityETag,
                             cancellation: cancellation)
        case 404, 204, 410:
            folder.remove(record.file)
            folder.removePart(record.file)
            try file.withConnection { db throws(ODataError) in
                if property.isEmpty {
                    try StreamTable.delete(entitySet: record.entitySet, entityID: record.entityID, property: property, in: db)
                } else {
                    try StreamTable.save(StreamRecord(entitySet: record.entitySet, entityID: record.entityID, property: property,
                                                      file: record.file, state: .absent, entityETag: entityETag), in: db)
                }
            }
            return .absent
        case 200, 206:
            break
        default:
            throw transport.serviceError(HTTPResponse(status: response.status, headers: response.headers, body: sink.errorBody),
                                         request: label)
        }
        if let total = sink.announcedTotal, sink.length != total {
            throw ODataError(.network, "\(label): the stream ended after \(sink.length) of the \(total) bytes announced")
        }
        return try finish(record, etag: response.header("ETag"), contentType: response.header("Content-Type"),
                          entityETag: entityETag, resumedFrom: response.status == 206 ? onDisk : 0)
    }

    /// The temporary file is the whole stream: hashed, written to disk, moved into place, recorded.
    private func finish(_ stream: StreamRecord, etag: String?, contentType: String?, entityETag: String?,
                        resumedFrom: Int64) throws(ODataError) -> Result {
        var record = stream
        let digest = try StreamFolder.digest(ofFile: folder.partPath(record.file))
        try folder.publish(record.file)
        record.state = .complete
        // An answer without an `ETag` takes the media ETag the payload announced, so the next
        // download does not find the stream changed for want of one.
        record.etag = etag ?? record.announcedETag
        record.entityETag = entityETag
        record.contentType = contentType ?? "application/octet-stream"
        record.length = digest.length
        record.sha256 = digest.sha256
        record.received = 0
        try file.withConnection { db throws(ODataError) in try StreamTable.save(record, in: db) }
        return .fetched(bytes: digest.length, resumedFrom: resumedFrom)
    }

    /// A refused stream leaves nothing of it on disk: its temporary file goes, and a complete
    /// stream the store had before stays as it was.
    private func refuse(_ refusal: StreamFileSink.Refusal, record: StreamRecord, hasComplete: Bool, label: String,
                        limit: Int64) throws(ODataError) -> Never {
        folder.removePart(record.file)
        if case .writeFailed(let error) = refusal { throw error }
        if hasComplete {
            var kept = record
            kept.state = .complete
            try file.withConnection { db throws(ODataError) in try StreamTable.save(kept, in: db) }
        } else {
            try file.withConnection { db throws(ODataError) in
                try StreamTable.delete(entitySet: record.entitySet, entityID: record.entityID, property: record.property, in: db)
            }
        }
        switch refusal {
        case .tooLarge(let announced):
            let said = announced.map { " (it announced \($0) bytes)" } ?? ""
            throw ODataError(.http, "\(label): the stream is larger than the \(limit) bytes the stream limits leave\(said); refused")
        case .longerThanAnnounced(let total):
            throw ODataError(.http, "\(label): the service sent more than the \(total) bytes it announced; refused")
        case .wrongRange(let range):
            throw ODataError(.http, "\(label): a 206 answer whose Content-Range '\(range)' does not continue the kept bytes")
        case .writeFailed(let error):
            throw error
        }
    }
}
