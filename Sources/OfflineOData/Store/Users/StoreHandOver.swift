#if canImport(Glibc)
import Glibc
#endif

/// A store file changing hands (``ODataStore/handOver(path:key:to:newKey:choice:)``,
/// docs/SHARED-DEVICE.md). Works on the closed file through a handle of its own, never through an
/// app's handle, so the previous user's credentials serve only the previous user's upload.
struct StoreHandOver {
    let path: String
    let key: StoreKey?
    let newUser: String
    let newKey: StoreKey?

    func run(_ choice: HandOverChoice) throws(ODataError) -> HandOverOutcome {
        try StoreUserBinding.check(newUser)
        guard !path.isEmpty else { throw ODataError(.misuse, "the store path is empty") }
        if key != nil && newKey == nil {
            throw ODataError(.misuse, "the store is encrypted: hand it over with the new user's key (newKey)")
        }
        if case .keepApart(let kept) = choice { return try keepApart(at: kept) }
        let store = try LocalStore.open(path: path, key: key)
        defer { store.close() }
        try store.file.requireWritable()
        let previous = try store.file.withConnection { db throws(ODataError) in try StoreUserBinding.user(in: db) }
        if previous == newUser {
            // A hand-over killed between its wipe and its rekey: finish the rekey, nothing else.
            guard try isWiped(store) else { throw ODataError(.misuse, "the store already belongs to user '\(newUser)'") }
            if key != nil || newKey != nil { try store.file.rekey(to: newKey) }
            return HandOverOutcome(previousUser: previous, newUser: newUser)
        }
        var uploaded = 0
        if case .uploadFirst(let credentials) = choice {
            try credentials.validate()
            // This handle's transport is made from the previous user's credentials and closes with it.
            store.setHTTPOptions(credentials)
            let outcome = try store.upload()
            uploaded = outcome.sent
            let left = try store.file.queuedRequests().count
            guard left == 0 else {
                throw ODataError(.network, "the previous user's upload left \(left) request(s) queued: they stay "
                    + "\(previous.map { "user '\($0)''s" } ?? "the store's"); hand the store over again, or choose otherwise")
            }
        }
        let discarded = try UploadLock.holding(for: store.file) { () throws(ODataError) -> Int in
            try UserDataWipe(schema: store.schema, previousUser: previous).wipe(store, bindingTo: newUser)
        }
        if key != nil || newKey != nil { try store.file.rekey(to: newKey) }
        return HandOverOutcome(previousUser: previous, newUser: newUser, uploaded: uploaded, discarded: discarded)
    }

    /// Whether nothing of a user's is left but the record of discarded changes (a finished wipe).
    private func isWiped(_ store: LocalStore) throws(ODataError) -> Bool {
        try store.file.withConnection { db throws(ODataError) -> Bool in
            let queued = try RequestQueueTable.count(in: db)
            let archived = try db.scalarInt("SELECT count(*) FROM ood_error_archive") ?? 0
            return queued == 0 && archived == 0
        }
    }

    /// Renames the previous user's store (its WAL folded in first, so the rename moves all of it)
    /// and makes a new store at `path` for the new user from the kept one's model, service root
    /// and defining requests. A kill after the rename leaves the path free: the new user's next
    /// open makes the store there as for any new file.
    private func keepApart(at kept: String?) throws(ODataError) -> HandOverOutcome {
        let store = try LocalStore.open(path: path, key: key)
        let previous: String?
        let metadata: String?
        let root: String?
        let dialect: Dialect
        let requests: [DefiningRequest]
        do throws(ODataError) {
            previous = try store.file.withConnection { db throws(ODataError) in try StoreUserBinding.user(in: db) }
            if previous == newUser { throw ODataError(.misuse, "the store already belongs to user '\(newUser)'") }
            metadata = try store.file.withConnection { db throws(ODataError) in try StoreInfoTable.value("metadata", in: db) }
            root = try store.serviceRoot()
            dialect = store.dialect
            requests = try store.definingRequests().map { DefiningRequest(name: $0.name, url: $0.url, retrievesStreams: $0.retrievesStreams) }
            try store.file.withConnection { db throws(ODataError) in _ = try db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)") }
        } catch {
            store.close()
            throw error
        }
        store.close()
        let target = kept ?? path + "." + Self.fileNamePart(previous ?? "nobody")
        guard access(target, F_OK) != 0 else { throw ODataError(.cannotOpen, "'\(target)' already exists: the kept store needs a free path") }
        guard rename(path, target) == 0 else {
            throw ODataError(.cannotOpen, "cannot keep the store apart at '\(target)': \(String(cString: strerror(errno)))")
        }
        // The log is empty (folded in above); the streams and the upload lock go with the file.
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        _ = rename(StreamFolder(storePath: path).path, StreamFolder(storePath: target).path)
        _ = rename(UploadLock.lockPath(forStoreFile: path), UploadLock.lockPath(forStoreFile: target))
        if let metadata {
            let made = try LocalStore.create(path: path, metadata: metadata, dialect: dialect, definingRequests: requests,
                                             serviceRoot: root, key: newKey)
            defer { made.close() }
            try made.file.withConnection { db throws(ODataError) in try StoreUserBinding.bind(newUser, in: db) }
        }
        return HandOverOutcome(previousUser: previous, newUser: newUser, keptAt: target)
    }

    /// `name` as part of a file name: letters, digits, `-`, `_` and `.` kept, anything else `_`.
    static func fileNamePart(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": Character(scalar)
            default: "_"
            }
        })
    }
}
