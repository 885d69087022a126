/// What a store remembers of the service's `$metadata` as last seen, so the next check can ask
/// "has it changed?" with one conditional request: its `ETag`, its `Last-Modified` date and a hash
/// of its bytes (``DocumentHash``), in `ood_store_info`.
///
/// They describe the service's document, which need not be the one the store was built from (a
/// store made from a file, or one whose model the app has not adopted yet): the store's own model
/// stays under the key `metadata`.
struct ServiceModelRecord: Sendable, Equatable {
    var etag: String?
    var lastModified: String?
    var hash: String?

    static let etagKey = "service_metadata_etag"
    static let lastModifiedKey = "service_metadata_last_modified"
    static let hashKey = "service_metadata_hash"

    static func read(in db: SQLiteConnection) throws(ODataError) -> ServiceModelRecord {
        ServiceModelRecord(etag: try StoreInfoTable.value(etagKey, in: db),
                           lastModified: try StoreInfoTable.value(lastModifiedKey, in: db),
                           hash: try StoreInfoTable.value(hashKey, in: db))
    }

    func write(in db: SQLiteConnection) throws(ODataError) {
        try StoreInfoTable.setValue(etag, for: Self.etagKey, in: db)
        try StoreInfoTable.setValue(lastModified, for: Self.lastModifiedKey, in: db)
        try StoreInfoTable.setValue(hash, for: Self.hashKey, in: db)
    }
}
