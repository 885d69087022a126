/// The one progress rule of every surface: a progress callback answers whether to STOP. True
/// stops the download or upload (``ODataError/Code/aborted``, nothing lost), as C's `ood_progress`
/// stops on non-zero and Python's callable on a true value. The older `progress:` closures of
/// ``ODataStore/download(subset:delta:progress:completion:)`` and
/// ``ODataStore/upload(batch:batchSize:groupByTransaction:progress:completion:)`` answer whether to
/// go on (the opposite); they stay for the code that uses them.
extension ODataStore {
    /// Downloads as ``download(subset:delta:progress:completion:)``; `stoppingWhen` runs after each
    /// page and returning true stops the download.
    @discardableResult
    public func download(subset: [String]? = nil, delta: Bool = true,
                         stoppingWhen stops: @escaping @Sendable (DownloadProgress) -> Bool,
                         completion: @escaping @Sendable (Result<[DownloadOutcome], ODataError>) -> Void) -> RequestHandle {
        download(subset: subset, delta: delta, progress: { !stops($0) }, completion: completion)
    }

    public func download(subset: [String]? = nil, delta: Bool = true,
                         stoppingWhen stops: @escaping @Sendable (DownloadProgress) -> Bool) async throws(ODataError) -> [DownloadOutcome] {
        try await awaitResult { completion in download(subset: subset, delta: delta, stoppingWhen: stops, completion: completion) }
    }

    /// Uploads as ``upload(batch:batchSize:groupByTransaction:progress:completion:)``; `stoppingWhen`
    /// runs after each answered request and returning true stops the upload after it.
    @discardableResult
    public func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                       stoppingWhen stops: @escaping @Sendable (UploadProgress) -> Bool,
                       completion: @escaping @Sendable (Result<UploadOutcome, ODataError>) -> Void) -> RequestHandle {
        upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction, progress: { !stops($0) },
               completion: completion)
    }

    public func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                       stoppingWhen stops: @escaping @Sendable (UploadProgress) -> Bool) async throws(ODataError) -> UploadOutcome {
        try await awaitResult { completion in
            upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction, stoppingWhen: stops,
                   completion: completion)
        }
    }

    /// Downloads, reporting each page to `onProgress` (on the store's sync thread, in order).
    /// Cancelling the task stops the download (``ODataError/Code/aborted``, nothing lost).
    public func download(subset: [String]? = nil, delta: Bool = true,
                         onProgress: @escaping @Sendable (DownloadProgress) -> Void) async throws(ODataError) -> [DownloadOutcome] {
        try await download(subset: subset, delta: delta, stoppingWhen: { step in
            onProgress(step)
            return false
        })
    }

    /// Uploads, reporting each answered request to `onProgress` (on the store's sync thread, in
    /// order). Cancelling the task stops the upload after the request in flight (``ODataError/Code/aborted``).
    public func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                       onProgress: @escaping @Sendable (UploadProgress) -> Void) async throws(ODataError) -> UploadOutcome {
        try await upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction, stoppingWhen: { step in
            onProgress(step)
            return false
        })
    }
}
