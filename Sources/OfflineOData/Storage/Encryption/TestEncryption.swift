#if DEBUG
#if canImport(Glibc)
import Glibc
#endif

/// `make test-encrypted`: in a debug build only, `OOD_TEST_STORE_KEY` (64 hex digits) is the key of
/// every store file opened without one that is new or already encrypted, so the existing suites
/// run over encrypted files unchanged; plain files already there (fixtures) stay plain. A release
/// build has no such variable.
enum TestEncryption {
    static let key: StoreKey? = {
        guard let text = getenv("OOD_TEST_STORE_KEY") else { return nil }
        return StoreKey.fromHex(String(cString: text))
    }()

    /// `OOD_TEST_JOURNAL_MODE=delete`: store files in SQLite's rollback-journal mode instead of
    /// WAL, so the encrypted journal is what the suites exercise (readers then wait for writers).
    static let journalMode: String? = {
        guard let text = getenv("OOD_TEST_JOURNAL_MODE"), String(cString: text) == "delete" else { return nil }
        return "DELETE"
    }()

    /// The key for the store at `path` when the caller gave none.
    static func key(for path: String) -> StoreKey? {
        guard let key else { return nil }
        switch StoreCipher.state(of: path) {
        case .missing, .encrypted, .damagedHeader: return key
        case .plainSQLite, .other: return nil
        }
    }
}
#endif
