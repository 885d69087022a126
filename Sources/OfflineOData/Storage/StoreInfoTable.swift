/// The `ood_store_info` table: the store's own facts, as key and text value.
///
/// Keys in use: `format_version`; `metadata` (the `$metadata` document the tables were made from,
/// so a store reopens with no service in reach); `dialect` (`v2` or `v4`, the OData dialect the
/// store speaks); `service_root` (where downloads and uploads go, if known).
enum StoreInfoTable {
    static func value(_ key: String, in db: SQLiteConnection) throws(ODataError) -> String? {
        try db.scalarText("SELECT value FROM ood_store_info WHERE key = ?1", [.text(key)])
    }

    static func setValue(_ value: String?, for key: String, in db: SQLiteConnection) throws(ODataError) {
        if let value {
            try db.prepare("INSERT OR REPLACE INTO ood_store_info (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
        } else {
            try db.prepare("DELETE FROM ood_store_info WHERE key = ?1").run([.text(key)])
        }
    }
}
