/// The JSON forms of the sync statistics and the sync log, shared by the tool's `--json`, the C
/// API and (through the C API) the Python binding.
extension SyncStatistics {
    /// `{"downloads":[...],"queuedRequests","oldestQueuedAt","oldestQueuedAgeSeconds","queuedInDoubt",`
    /// `"archivedRequests","archivedInDoubt","lastUpload"}`; a download is `{"definingRequest","entities",`
    /// `"bytes","pages","durationMs","expectedEntities","outcome","message","finishedAt","lastSuccessAt"}`,
    /// the last upload `{"sent","archived","bytes","durationMs","outcome","message","finishedAt","lastSuccessAt"}`
    /// or null.
    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("downloads")
        writer.beginArray()
        for download in downloads {
            writer.beginObject()
            writer.writeKey("definingRequest"); writer.writeString(download.definingRequest)
            writer.writeKey("entities"); writer.writeNumber(download.entities)
            writer.writeKey("bytes"); writer.writeNumber(download.bytes)
            writer.writeKey("pages"); writer.writeNumber(download.pages)
            writer.writeKey("durationMs"); writer.writeNumber(download.durationMilliseconds)
            writer.writeKey("expectedEntities"); Self.write(download.expectedEntities, to: &writer)
            writer.writeKey("outcome"); writer.writeString(download.outcome.rawValue)
            writer.writeKey("message"); Self.write(download.message, to: &writer)
            writer.writeKey("finishedAt"); writer.writeString(download.finishedAt)
            writer.writeKey("lastSuccessAt"); Self.write(download.lastSuccessAt, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("queuedRequests"); writer.writeNumber(queuedRequests)
        writer.writeKey("oldestQueuedAt"); Self.write(oldestQueuedAt, to: &writer)
        writer.writeKey("oldestQueuedAgeSeconds"); Self.write(oldestQueuedAgeSeconds, to: &writer)
        writer.writeKey("queuedInDoubt"); writer.writeNumber(queuedInDoubt)
        writer.writeKey("archivedRequests"); writer.writeNumber(archivedRequests)
        writer.writeKey("archivedInDoubt"); writer.writeNumber(archivedInDoubt)
        writer.writeKey("lastUpload")
        if let upload = lastUpload {
            writer.beginObject()
            writer.writeKey("sent"); writer.writeNumber(upload.sent)
            writer.writeKey("archived"); writer.writeNumber(upload.archived)
            writer.writeKey("bytes"); writer.writeNumber(upload.bytes)
            writer.writeKey("durationMs"); writer.writeNumber(upload.durationMilliseconds)
            writer.writeKey("outcome"); writer.writeString(upload.outcome.rawValue)
            writer.writeKey("message"); Self.write(upload.message, to: &writer)
            writer.writeKey("finishedAt"); writer.writeString(upload.finishedAt)
            writer.writeKey("lastSuccessAt"); Self.write(upload.lastSuccessAt, to: &writer)
            writer.endObject()
        } else {
            writer.writeNull()
        }
        writer.endObject()
    }

    package var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func write(_ value: Int?, to writer: inout JSONWriter) {
        if let value { writer.writeNumber(value) } else { writer.writeNull() }
    }

    static func write(_ value: String?, to writer: inout JSONWriter) {
        if let value { writer.writeString(value) } else { writer.writeNull() }
    }
}

extension SyncLogEntry {
    /// `{"id","at","kind","definingRequest","requestID","entities","bytes","remaining","durationMs","outcome","message"}`;
    /// kind is download, upload or refusal.
    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("id"); writer.writeNumber(id)
        writer.writeKey("at"); writer.writeString(at)
        writer.writeKey("kind"); writer.writeString(kind.rawValue)
        writer.writeKey("definingRequest"); SyncStatistics.write(definingRequest, to: &writer)
        writer.writeKey("requestID"); requestID.map { writer.writeNumber($0) } ?? writer.writeNull()
        writer.writeKey("entities"); SyncStatistics.write(entities, to: &writer)
        writer.writeKey("bytes"); SyncStatistics.write(bytes, to: &writer)
        writer.writeKey("remaining"); SyncStatistics.write(remaining, to: &writer)
        writer.writeKey("durationMs"); SyncStatistics.write(durationMilliseconds, to: &writer)
        writer.writeKey("outcome"); writer.writeString(outcome.rawValue)
        writer.writeKey("message"); SyncStatistics.write(message, to: &writer)
        writer.endObject()
    }

    /// A JSON array of `entries`.
    package static func jsonText(_ entries: [SyncLogEntry]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for entry in entries { entry.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
