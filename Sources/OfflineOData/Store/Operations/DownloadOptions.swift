/// What ``StoreOperation/download(_:)`` downloads, and how.
public struct DownloadOptions: Sendable {
    /// The defining requests to download, by name; nil for all of them.
    public var subset: [String]?
    /// Whether to download each whole result even where a delta link would fetch only the changes
    /// (as C's and Python's `full`). What a whole result no longer holds leaves the store.
    public var full: Bool
    /// Runs after each page on the store's sync thread, or the thread waiting in
    /// ``ODataStore/performAndWait(_:)`` (beside the ``StoreEvent/downloadProgress(_:)`` event),
    /// and answers whether to STOP: true stops the
    /// download with ``ODataError/Code/aborted``, nothing lost (the rule of every surface: C's
    /// `ood_progress`, Python's callable).
    public var progress: (@Sendable (DownloadProgress) -> Bool)?
    /// Whether the download first checks the service's `$metadata` (``StoreOperation/checkService``):
    /// a compatible change is migrated and the download goes on, any other stops it. True by
    /// default; false only where the caller checks by itself.
    public var checksServiceModel = true

    public init(subset: [String]? = nil, full: Bool = false, progress: (@Sendable (DownloadProgress) -> Bool)? = nil) {
        self.subset = subset
        self.full = full
        self.progress = progress
    }
}
