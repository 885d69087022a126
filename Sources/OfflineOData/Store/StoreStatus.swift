/// What ``StoreOperation/status`` reports.
public struct StoreStatus: Sendable, Equatable {
    public var state: StoreState
    public var mode: WorkingMode
    public var dialect: Dialect
    /// Nil for a store that works offline only.
    public var serviceRoot: String?
    /// The store file; nil for a store that works online only.
    public var path: String?
    public var definingRequests: [DefiningRequest]
    /// Local changes waiting for an upload.
    public var queuedRequests: Int
    /// Requests the service refused, kept in the error archive.
    public var archivedRequests: Int
    /// The indexes the store made beyond its key's, declared or automatic.
    public var indexes: [StoreIndex] = []
    /// The last downloads, the queue's depth and age, and the last upload; nil for a store that
    /// works online only.
    public var sync: SyncStatistics?
    /// Whether the store file was found not closed cleanly when it was opened (its last user ended
    /// with it open); SQLite's quick check then found it sound, or opening would have failed (see
    /// ``StoreEvent/uncleanShutdownChecked(_:)``).
    public var wasNotClosedCleanly = false
    /// The last check that found the service's `$metadata` changed in a way the store has not
    /// adopted yet (``ServiceModelCheck/jsonText``); nil when none did.
    public var serviceModelChange: String?
}
