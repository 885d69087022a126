/// What becomes of the previous user's pending changes when a store changes hands
/// (docs/SHARED-DEVICE.md): the app's choice, given to ``ODataStore/handOver(path:key:to:newKey:choice:)``.
public enum HandOverChoice: Sendable {
    /// Upload the previous user's queue with *their* credentials, given here for this one upload
    /// (never kept in the file), then give the emptied store to the new user. Fails with the
    /// queue intact when the upload does not empty it. Requests the service refuses are recorded
    /// as discarded, as with ``discard``.
    case uploadFirst(credentials: HTTPOptions)
    /// Drop the previous user's queue and error archive, each request recorded as a discarded
    /// change (``ODataStore/discardedChanges``-style records, policy `handOver:<user>`) that the app
    /// reads and clears.
    case discard
    /// Keep the previous user's store whole under another name (nil: `<path>.<user>`) and give
    /// the new user a new, empty store at the path, made from the same `$metadata`, service root
    /// and defining requests.
    case keepApart(path: String?)
}

/// What a hand-over did.
public struct HandOverOutcome: Sendable, Equatable {
    /// Who held the store before; nil when it belonged to nobody.
    public var previousUser: String?
    public var newUser: String
    /// Requests the previous user's upload applied on the service (``HandOverChoice/uploadFirst(credentials:)``).
    public var uploaded: Int
    /// Requests recorded as discarded (queued or archived ones of the previous user).
    public var discarded: Int
    /// Where the previous user's store is kept (``HandOverChoice/keepApart(path:)``).
    public var keptAt: String?

    public init(previousUser: String?, newUser: String, uploaded: Int = 0, discarded: Int = 0, keptAt: String? = nil) {
        self.previousUser = previousUser
        self.newUser = newUser
        self.uploaded = uploaded
        self.discarded = discarded
        self.keptAt = keptAt
    }
}
