/// The layout of a store file and the migrations that bring an older file up to date.
///
/// A store file is an SQLite database whose `application_id` is ``applicationID`` and which has the
/// table `ood_store_info` with the row `format_version`. Each migration moves a file from version
/// `n - 1` to `n` inside one transaction; a file newer than this engine is refused, never changed.
enum StoreFormat {
    /// `PRAGMA application_id`: the bytes "OOD1", so `file(1)` and a hex dump tell a store apart.
    static let applicationID: Int64 = 0x4F4F_4431

    /// The newest format this engine writes.
    static var currentVersion: Int { migrations.count }

    /// `migrations[i]` turns a version-`i` file into a version-`i + 1` file.
    static let migrations: [String] = [
        // 1: the store's own bookkeeping.
        """
        CREATE TABLE ood_store_info (key TEXT PRIMARY KEY NOT NULL, value TEXT) WITHOUT ROWID;
        """,
    ]
}
