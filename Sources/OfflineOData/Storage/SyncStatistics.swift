/// What the last download of one defining request did, kept in the store (it survives a restart).
public struct DownloadStatistics: Sendable, Equatable {
    public var definingRequest: String
    /// Entities received, expanded ones included.
    public var entities: Int
    /// Bytes of the pages' bodies, as received.
    public var bytes: Int
    public var pages: Int
    public var durationMilliseconds: Int
    /// The total the service announced (`@odata.count`, V2 `__count`), when it did.
    public var expectedEntities: Int?
    /// `succeeded`, `failed` or `stopped` (``SyncOutcome``).
    public var outcome: SyncOutcome
    /// Why it failed or stopped; nil after a success.
    public var message: String?
    /// When it ended (UTC, ISO 8601).
    public var finishedAt: String
    /// When a download of this defining request last succeeded; nil if none did since statistics were kept.
    public var lastSuccessAt: String?
}

/// What the last upload did, kept in the store.
public struct UploadStatistics: Sendable, Equatable {
    /// Requests the service applied.
    public var sent: Int
    /// Requests moved to the error archive.
    public var archived: Int
    /// Bytes of the bodies of the requests applied.
    public var bytes: Int
    public var durationMilliseconds: Int
    public var outcome: SyncOutcome
    public var message: String?
    public var finishedAt: String
    /// When an upload last ran to the end of the queue.
    public var lastSuccessAt: String?
}

/// How a download, an upload or a queued request ended, as the store records it.
public enum SyncOutcome: String, Sendable, Equatable {
    case succeeded
    case failed
    /// Stopped by the caller (a progress callback that said stop, a cancellation).
    case stopped
    /// An uploaded request the service refused (archive kind `refused`).
    case refused
    /// An uploaded request in conflict with the service's entity (archive kind `conflict`).
    case conflict
    /// An uploaded request whose outcome the engine cannot find out (archive kind `inDoubt`).
    case inDoubt
    /// A queued request the service's new model refuses, archived by the app's choice (archive kind `modelChanged`).
    case modelChanged
}

/// The store's synchronisation at a glance: per defining request its last download, and for the
/// queue its depth, its age and what needs a decision.
public struct SyncStatistics: Sendable, Equatable {
    /// One per defining request downloaded at least once since statistics were kept, in the
    /// defining requests' order.
    public var downloads: [DownloadStatistics]
    /// Requests waiting for an upload.
    public var queuedRequests: Int
    /// When the oldest queued request was queued (UTC, ISO 8601); nil for an empty queue.
    public var oldestQueuedAt: String?
    /// Whole seconds since then, by this machine's clock; nil for an empty queue.
    public var oldestQueuedAgeSeconds: Int?
    /// Queued requests sent without an answer recorded (``QueueState/inDoubt``).
    public var queuedInDoubt: Int
    /// Requests in the error archive, and of those the ones in doubt (``ArchiveKind/inDoubt``).
    public var archivedRequests: Int
    public var archivedInDoubt: Int
    /// The last upload, if one ran since statistics were kept.
    public var lastUpload: UploadStatistics?
}
