/// The queued rows an upload sends, in order, after the queue's optimization.
///
/// THE STEP WHERE THE QUEUE'S COMPACTION PLUGS IN (branch queue-optimize: a pure function over the
/// queued rows that drops or merges requests before an upload). It is the identity until then.
/// The preview (``UploadPreviewer``) builds its list from what this returns; the upload must send
/// the same rows, so the compaction is to be applied to both through this one function.
enum PlannedRows {
    static func plannedRows(_ rows: [QueuedRequest]) -> [QueuedRequest] { rows }
}
