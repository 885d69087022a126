/// `GET Set(key)/$value` of a media entity through the ordinary request API (issue 35,
/// docs/MEDIA.md): answered from the stream's file with its recorded content type and media ETag,
/// offline. The body is the bytes, so a stream past ``mediaValueMaximum`` is refused with the way
/// to read it as a file instead (``streamFile(url:)``): a large stream is never loaded by accident.
extension LocalStore {
    /// The largest stream a request's answer holds in memory: 64 MiB.
    package static let mediaValueMaximum: Int64 = 64 << 20

    /// The answer to the bound read of a media entity's `$value`.
    ///
    /// - Throws: ``ODataError/Code/notFound`` when the store has no such entity or has not
    ///   downloaded its stream; ``ODataError/Code/unsupported`` for a stream past ``mediaValueMaximum``.
    func mediaValue(_ bound: BoundRequest) throws(ODataError) -> StoreResponse {
        guard let path = bound.path, path.steps.isEmpty, path.rootKey != nil, let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.unsupported, "the offline store answers $value of a media entity addressed by its key, like Documents(1)/$value")
        }
        let found = try file.withReadConnection { db, _ throws(ODataError) -> StreamRecord? in
            guard let id = try LocalUndo.entityID(key: table.keyValues(of: path), in: table, on: db) else {
                throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store")
            }
            return try StreamTable.record(entitySet: table.entitySet, entityID: id, in: db)
        }
        guard let record = found, record.state != .partial, let length = record.length else {
            throw ODataError(.notFound, "the store has no stream for this entity of \(table.entitySet) (not downloaded yet: "
                             + "its defining request must retrieve streams, and the download of it finish)")
        }
        guard length <= Self.mediaValueMaximum else {
            throw ODataError(.unsupported, "the stream of this entity of \(table.entitySet) is \(length) bytes, more than the "
                             + "\(Self.mediaValueMaximum >> 20) MiB a request's answer holds in memory: read it as a file "
                             + "(streamFile, ood_stream_file, Store.stream_file or open_stream)")
        }
        let bytes = try streamFolder.contents(of: record.file, length: length)
        return StoreResponse(status: 200, contentType: record.contentType ?? "application/octet-stream", body: bytes,
                             headers: record.etag.map { [HTTPHeader("ETag", $0)] } ?? [], shape: AnswerShape(bound, model: model))
    }
}
