/// The queued rows an upload sends, in order: the queue as ``QueueCompaction`` leaves it when the
/// upload compacts it first (the default), else as queued.
///
/// The upload applies the compaction durably (``QueueCompactor``); the preview
/// (``UploadPreviewer``) applies the same pure function in memory, so it shows what the upload
/// will send without changing the store.
enum PlannedRows {
    static func plannedRows(_ rows: [QueuedRequest], compactsQueue: Bool, schema: StoreSchema) -> [QueuedRequest] {
        guard compactsQueue else { return rows }
        return QueueCompaction.compact(rows, keyProperties: QueueCompactor(schema: schema).keyProperties).queue
    }
}
