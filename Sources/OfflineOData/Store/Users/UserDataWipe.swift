/// Empties a store of everything one user had, in one transaction, and binds it to the next user
/// (docs/SHARED-DEVICE.md): the user's queued and archived requests are first recorded as
/// discarded changes (outcome `discarded`, policy `handOver:<user>`), the record the app reads
/// and clears; then the entities, links, memberships, original values, download state (delta
/// links, resume points), statistics, sync log, read shapes and streams go. A kill before the
/// commit leaves the store as it was, bound to the previous user; after it, bound to the new one
/// with nothing of the previous user's.
struct UserDataWipe {
    let schema: StoreSchema
    let previousUser: String?

    /// The store's own tables that hold a user's data (the entity tables come from the schema).
    static let userTables = [
        "ood_membership", "ood_link", "ood_request_queue", "ood_error_archive", "ood_original", "ood_read_shape",
        "ood_download_statistics", "ood_upload_statistics", "ood_sync_log", "ood_download_resume", "ood_download_page",
        "ood_stream",
    ]

    /// Wipes and binds; returns how many requests were recorded as discarded.
    func wipe(_ store: LocalStore, bindingTo newUser: String) throws(ODataError) -> Int {
        var streamFiles: [String] = []
        let discarded = try store.file.withConnection { db throws(ODataError) -> Int in
            // Freed pages are overwritten, so the previous user's rows do not linger in the file.
            try db.execute("PRAGMA secure_delete = ON")
            let count = try db.transaction { () throws(ODataError) -> Int in
                let recorded = try recordDiscarded(in: db)
                streamFiles = try Self.streamFiles(in: db)
                for table in schema.tables { try db.execute("DELETE FROM \(table.quotedName)") }
                for table in Self.userTables { try db.execute("DELETE FROM \(table)") }
                // Conflict details of the archive went with it (now recorded as discarded above).
                try db.execute("DELETE FROM ood_conflict WHERE outcome <> 'discarded'")
                try db.execute("UPDATE ood_defining_request SET last_download = NULL, delta_link = NULL")
                try StoreUserBinding.bind(newUser, in: db)
                return recorded
            }
            _ = try? db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute("PRAGMA secure_delete = OFF")
            return count
        }
        let folder = store.streamFolder
        for name in streamFiles {
            folder.remove(name)
            folder.removePart(name)
        }
        return discarded
    }

    /// Records every queued and archived request as a discarded change of `previousUser`.
    private func recordDiscarded(in db: SQLiteConnection) throws(ODataError) -> Int {
        let policy = "handOver:" + (previousUser ?? "")
        var count = 0
        let archived = try RequestQueueTable.archived(in: db)
        let queued = try RequestQueueTable.all(in: db)
        let entries = archived.map { ($0.request, $0.httpStatus as Int?) } + queued.map { ($0, nil as Int?) }
        for (request, status) in entries.sorted(by: { $0.0.id < $1.0.id }) {
            let local: JSONValue
            if let body = request.body { local = (try? JSONValue.parse(body)) ?? .string(body) } else { local = .null }
            try ConflictTable.record(ConflictDetail(requestID: request.id, outcome: .discarded, policy: policy,
                                                    entitySet: request.entitySet, entityID: request.entityID,
                                                    method: request.method, url: request.url, httpStatus: status,
                                                    original: .object([]), local: local, served: .null, properties: []),
                                     in: db)
            count += 1
        }
        return count
    }

    /// The stream files the store records (removed once the wipe committed).
    private static func streamFiles(in db: SQLiteConnection) throws(ODataError) -> [String] {
        let statement = try db.prepare("SELECT file FROM ood_stream")
        try statement.bind([])
        var names: [String] = []
        while try statement.step() { if let name = statement.text(at: 0) { names.append(name) } }
        return names
    }
}
