/// How ``StoreOperation/upload(_:)`` (and ``StoreOperation/previewUpload(_:)``) send the request queue.
public struct UploadOptions: Sendable {
    /// Send the queue in `$batch` requests instead of one by one.
    public var batch: Bool
    /// At most this many queued requests per `$batch`.
    public var batchSize: Int
    /// Requests with the same transaction id go in one change set, applied or refused together.
    public var groupByTransaction: Bool
    /// Whether to compact the queue first; nil follows ``ODataStore/Options/compactsUploadQueue``.
    public var compactsQueue: Bool?
    /// Runs after each answered request on the store's sync thread, or the thread waiting in
    /// ``ODataStore/performAndWait(_:)``, and answers whether to STOP:
    /// true stops the upload after that request (``ODataError/Code/aborted``), as C's and Python's
    /// progress callbacks. A preview does not call it.
    public var progress: (@Sendable (UploadProgress) -> Bool)?
    /// This upload's conflict policy for every entity set; nil follows the store's
    /// (``StoreOperation/setConflictPolicy(_:entitySet:)``, `archive` unless set).
    public var conflictPolicy: ConflictPolicy?
    /// Decides each conflict this upload meets (over the policy); see ``ConflictResolver``.
    public var conflictResolver: ConflictResolver?

    public init(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false, compactsQueue: Bool? = nil,
                progress: (@Sendable (UploadProgress) -> Bool)? = nil) {
        self.batch = batch
        self.batchSize = batchSize
        self.groupByTransaction = groupByTransaction
        self.compactsQueue = compactsQueue
        self.progress = progress
    }
}
