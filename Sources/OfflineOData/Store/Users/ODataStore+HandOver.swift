extension ODataStore {
    /// Gives the closed store file at `path` to `newUser` (docs/SHARED-DEVICE.md), doing with the
    /// previous user's pending changes what `choice` says: upload them with the previous user's
    /// credentials, discard them with a record, or keep them apart in a store of their own. The
    /// previous user's entities, queue, archive and sync log never reach the new user: after a
    /// hand-over the store at `path` is bound to `newUser` and holds none of them (its next
    /// download fills it for the new user). The store must be closed in every handle.
    ///
    /// A static function, not a ``StoreOperation`` of an open handle, because a handle's transport
    /// holds one user's credentials for its life: the previous user's upload gets a transport of
    /// its own, dropped with its cookies and CSRF token when the hand-over returns.
    ///
    /// - Parameters:
    ///   - key: the store's key now (the previous user's), nil for a plain store.
    ///   - newKey: the new user's key: the store (or, keeping apart, the new store) is encrypted
    ///     with it; nil leaves a plain store plain (an encrypted one needs a key: `misuse`).
    /// - Throws: ``ODataError/Code/misuse`` for a bad user name, or a store already bound to
    ///   `newUser`; ``ODataError/Code/key`` for a wrong `key`; the upload's errors (nothing of the
    ///   previous user's is dropped then); ``ODataError/Code/cannotOpen`` when the kept path is taken.
    @discardableResult
    public static func handOver(path: String, key: StoreKey? = nil, to newUser: String, newKey: StoreKey? = nil,
                                choice: HandOverChoice) throws(ODataError) -> HandOverOutcome {
        try StoreHandOver(path: path, key: key, newUser: newUser, newKey: newKey).run(choice)
    }

    /// The user the closed store file at `path` is bound to; nil when it belongs to nobody.
    public static func user(ofStoreAt path: String, key: StoreKey? = nil) throws(ODataError) -> String? {
        let store = try LocalStore.open(path: path, key: key)
        defer { store.close() }
        return try store.file.withConnection { db throws(ODataError) in try StoreUserBinding.user(in: db) }
    }
}
