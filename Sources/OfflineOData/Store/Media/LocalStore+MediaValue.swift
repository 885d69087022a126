/// `GET Set(key)/$value` of a media entity, and `GET Set(key)/Prop` of a V4 `Edm.Stream`
/// property, through the ordinary request API (issue 35, docs/MEDIA.md): answered from the stream's file with its recorded content type and media ETag,
/// offline. The body is the bytes, so a stream past ``mediaValueMaximum`` is refused with the way
/// to read it as a file instead (``streamFile(url:)``): a large stream is never loaded by accident.
extension LocalStore {
    /// The largest stream a request's answer holds in memory: 64 MiB.
    package static let mediaValueMaximum: Int64 = 64 << 20

    /// The answer to the bound read of a media entity's `$value` or of a stream property.
    ///
    /// - Throws: ``ODataError/Code/notFound`` when the store has no such entity or has not
    ///   downloaded its stream; ``ODataError/Code/unsupported`` for a stream past ``mediaValueMaximum``.
    func mediaValue(_ bound: BoundRequest) throws(ODataError) -> StoreResponse {
        guard let path = bound.path, path.steps.isEmpty, path.rootKey != nil, let table = schema.table(forEntitySet: path.entitySet) else {
            throw ODataError(.unsupported, "the offline store answers $value of a media entity addressed by its key, like Documents(1)/$value, "
                             + "and a stream property of one entity, like Inspections(1)/photo")
        }
        let property: String
        switch bound.target {
        case .streamProperty(let name): property = name
        default: property = ""
        }
        let what = property.isEmpty ? "this entity of \(table.entitySet)" : "the stream property \(property) of this entity of \(table.entitySet)"
        let found = try file.withReadConnection { db, _ throws(ODataError) -> StreamRecord? in
            guard let id = try LocalUndo.entityID(key: table.keyValues(of: path), in: table, on: db) else {
                throw ODataError(.notFound, "\(table.entitySet) has no entity with this key in the store")
            }
            return try StreamTable.record(entitySet: table.entitySet, entityID: id, property: property, in: db)
        }
        guard let record = found, record.state != .partial, let length = record.length else {
            throw ODataError(.notFound, "the store has no stream for \(what) (not downloaded yet, or the service has none: "
                             + "its defining request must retrieve streams, and the download of it finish)")
        }
        guard length <= Self.mediaValueMaximum else {
            throw ODataError(.unsupported, "the stream of \(what) is \(length) bytes, more than the "
                             + "\(Self.mediaValueMaximum >> 20) MiB a request's answer holds in memory: read it as a file "
                             + "(streamFile, ood_stream_file, Store.stream_file or open_stream)")
        }
        let bytes = try streamFolder.contents(of: record.file, length: length)
        return StoreResponse(status: 200, contentType: record.contentType ?? "application/octet-stream", body: bytes,
                             headers: record.etag.map { [HTTPHeader("ETag", $0)] } ?? [], shape: AnswerShape(bound, model: model))
    }
}
