/// What a store remembers of the service's `$metadata` as last seen, so the next check can ask
/// "has it changed?" with one conditional request: its `ETag`, its `Last-Modified` date and a hash
/// of its bytes (``DocumentHash``), in `ood_store_info`.
///
/// They describe the service's document, which need not be the one the store was built from (a
/// store made from a file, or one whose model the app has not adopted yet): the store's own model
/// stays under the key `metadata`.
package struct ServiceModelRecord: Sendable, Equatable {
    var etag: String?
    var lastModified: String?
    var hash: String?

    static let etagKey = "service_metadata_etag"
    static let lastModifiedKey = "service_metadata_last_modified"
    static let hashKey = "service_metadata_hash"

    /// One statement, kept prepared: every check (and so every download) reads these first.
    static func read(in db: SQLiteConnection) throws(ODataError) -> ServiceModelRecord {
        try db.withCachedStatement("SELECT key, value FROM ood_store_info WHERE key IN (?1, ?2, ?3)") { select throws(ODataError) in
            try select.bind([.text(etagKey), .text(lastModifiedKey), .text(hashKey)])
            var record = ServiceModelRecord()
            while try select.step() {
                switch select.text(at: 0) {
                case etagKey: record.etag = select.text(at: 1)
                case lastModifiedKey: record.lastModified = select.text(at: 1)
                case hashKey: record.hash = select.text(at: 1)
                default: break
                }
            }
            return record
        }
    }

    func write(in db: SQLiteConnection) throws(ODataError) {
        try StoreInfoTable.setValue(etag, for: Self.etagKey, in: db)
        try StoreInfoTable.setValue(lastModified, for: Self.lastModifiedKey, in: db)
        try StoreInfoTable.setValue(hash, for: Self.hashKey, in: db)
    }
}
