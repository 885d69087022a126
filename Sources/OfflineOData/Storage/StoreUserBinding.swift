/// The user a store file belongs to (docs/SHARED-DEVICE.md): the row `user` of `ood_store_info`,
/// the name the app gives. A store without the row belongs to nobody and is bound by its first
/// open for a user; a bound store opens only for that user, so one user's entities, queue and
/// credentials never serve another's requests on a shared device.
enum StoreUserBinding {
    /// The `ood_store_info` key.
    static let key = "user"

    /// The longest user name kept (a name, not a document).
    static let longestName = 256

    /// The user the store is bound to; nil when it belongs to nobody.
    static func user(in db: SQLiteConnection) throws(ODataError) -> String? {
        try StoreInfoTable.value(key, in: db)
    }

    /// Binds the store to `user` (nil unbinds it). The caller holds the transaction when other
    /// writes go with it.
    static func bind(_ user: String?, in db: SQLiteConnection) throws(ODataError) {
        if let user { try check(user) }
        try StoreInfoTable.setValue(user, for: key, in: db)
    }

    /// Refuses an empty name, one with control characters, or one longer than ``longestName``.
    static func check(_ user: String) throws(ODataError) {
        guard !user.isEmpty else { throw ODataError(.misuse, "a user name is empty") }
        guard user.utf8.count <= longestName else {
            throw ODataError(.misuse, "a user name is longer than \(longestName) bytes")
        }
        guard !user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ODataError(.misuse, "a user name has a control character")
        }
    }

    /// Lets `user` (nil: the app names none) open the store, or refuses with
    /// ``ODataError/Code/otherUser``; an unbound store opened for a user is bound to them here.
    /// Runs before any of the store's data is read for a request.
    static func admit(_ user: String?, in db: SQLiteConnection) throws(ODataError) {
        if let user { try check(user) }
        let holder = try self.user(in: db)
        switch (holder, user) {
        case (nil, nil):
            return
        case (nil, let user?):
            try db.transaction { () throws(ODataError) in
                // Read again inside the transaction: another process may have bound it meanwhile.
                let now = try self.user(in: db)
                if let now, now != user { throw try refusal(holder: now, user: user, in: db) }
                if now == nil { try bind(user, in: db) }
            }
        case (let holder?, let user):
            if holder != user { throw try refusal(holder: holder, user: user, in: db) }
        }
    }

    /// The error for a store held by `holder`: who holds it, how much of theirs is pending, and the ways on.
    static func refusal(holder: String, user: String?, in db: SQLiteConnection) throws(ODataError) -> ODataError {
        let queued = try RequestQueueTable.count(in: db)
        let archived = Int(try db.scalarInt("SELECT count(*) FROM ood_error_archive") ?? 0)
        let asked = user.map { "user '\($0)'" } ?? "no user"
        return ODataError(.otherUser, "the store belongs to user '\(holder)', who has \(queued) change(s) pending and \(archived) "
            + "in the error archive; it was opened for \(asked): hand it over first (upload first, discard, or keep apart)")
    }
}
