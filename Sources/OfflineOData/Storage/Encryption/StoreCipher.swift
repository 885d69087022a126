internal import CStoreCipher
internal import CSQLite

/// A data key registered with the encrypting VFS for one store file; its connections name it in
/// their URI (`ood_key=<id>`). Releasing it wipes the key once the last connection closed.
final class CipherKeyHandle: @unchecked Sendable {
    let id: Int32
    private let lock = Lock()
    private var released = false

    fileprivate init(id: Int32) { self.id = id }

    deinit { release() }

    /// Forgets the key (the store closed); connections still open keep it until they close.
    func release() {
        let first = lock.withLock { () -> Bool in
            defer { released = true }
            return !released
        }
        if first { ood_cipher_key_release(id) }
    }
}

/// Key handling for encrypted store files: which files are encrypted, deriving and checking keys,
/// registering them with the VFS. The format is docs/ENCRYPTION.md.
enum StoreCipher {
    /// Bytes SQLite must leave unused at the end of every page of an encrypted store.
    static let reserveBytes = Int32(OOD_CIPHER_RESERVE)
    /// The VFS's name for an encrypted store's URI.
    static let vfsName = OOD_CIPHER_VFS_NAME
    /// PBKDF2-HMAC-SHA256 iterations for a new passphrase store: about 100 ms on the project's
    /// machines (measured by `make bench`'s key-derivation line). Stored in each file's header,
    /// so a later change applies to new stores and rekeys only.
    static let passphraseIterations: UInt32 = 200_000

    /// What the file at a path is, as far as encryption goes.
    enum FileState {
        case missing
        case encrypted(ood_cipher_header)
        case damagedHeader
        case plainSQLite
        case other
    }

    static func state(of path: String) -> FileState {
        var header = ood_cipher_header()
        switch ood_cipher_read_header(path, &header) {
        case OOD_CIPHER_FILE_ENCRYPTED: return .encrypted(header)
        case OOD_CIPHER_FILE_DAMAGED: return .damagedHeader
        case OOD_CIPHER_FILE_SQLITE: return .plainSQLite
        case OOD_CIPHER_FILE_OTHER: return .other
        default: return .missing
        }
    }

    /// Whether the file at `path` starts as an encrypted store.
    static func isEncrypted(_ path: String) -> Bool {
        switch state(of: path) {
        case .encrypted, .damagedHeader: true
        default: false
        }
    }

    /// The handle for opening the existing file at `path` with `key` (nil for a plain store), or
    /// for making a new one there when no file (or an empty one) is there.
    ///
    /// - Throws: ``ODataError/Code/key`` for a wrong key, an encrypted file opened without a key,
    ///   or a plain one opened with a key; ``ODataError/Code/notAStore`` for a damaged header.
    static func handle(for path: String, key: StoreKey?) throws(ODataError) -> CipherKeyHandle? {
        switch state(of: path) {
        case .missing:
            guard let key else { return nil }
            return try newStoreHandle(key: key)
        case .encrypted(let header):
            guard let key else {
                throw ODataError(.key, "'\(path)' is an encrypted store: open it with its key")
            }
            return try existingStoreHandle(header: header, key: key, path: path)
        case .damagedHeader:
            throw ODataError(.notAStore, "'\(path)' is not an OfflineOData store: it starts as an encrypted store "
                             + "but its header is damaged")
        case .plainSQLite:
            guard key == nil else {
                throw ODataError(.key, "'\(path)' is not encrypted: open it without a key, or encrypt it with rekey")
            }
            return nil
        case .other:
            guard key == nil else {
                throw ODataError(.notAStore, "'\(path)' is not an OfflineOData store: it is neither an encrypted store nor SQLite")
            }
            return nil
        }
    }

    /// A handle with a fresh salt, for a new file (a new store, or the target of a rekey).
    static func newStoreHandle(key: StoreKey) throws(ODataError) -> CipherKeyHandle {
        try ensureRegistered()
        var header = ood_cipher_header()
        header.version = 1
        var salt = [UInt8](repeating: 0, count: 16)
        guard ood_cipher_random(&salt, 16) == 0 else { throw ODataError(.internalError, "cannot draw random bytes for a salt") }
        withUnsafeMutableBytes(of: &header.salt) { target in
            salt.withUnsafeBytes { target.copyMemory(from: $0) }
        }
        switch key {
        case .raw: header.kdf = UInt16(OOD_CIPHER_KDF_RAW)
        case .passphrase:
            header.kdf = UInt16(OOD_CIPHER_KDF_PBKDF2_SHA256)
            header.iterations = passphraseIterations
        }
        var dataKey = [UInt8](repeating: 0, count: 32)
        defer { wipe(&dataKey) }
        var check = [UInt8](repeating: 0, count: 16)
        try derive(key: key, header: header, dataKey: &dataKey, check: &check)
        withUnsafeMutableBytes(of: &header.check) { target in
            check.withUnsafeBytes { target.copyMemory(from: $0) }
        }
        return try register(dataKey: dataKey, header: header)
    }

    /// A handle for an existing encrypted file whose header is `header`, after checking the key.
    private static func existingStoreHandle(header: ood_cipher_header, key: StoreKey, path: String) throws(ODataError) -> CipherKeyHandle {
        try ensureRegistered()
        var dataKey = [UInt8](repeating: 0, count: 32)
        defer { wipe(&dataKey) }
        var check = [UInt8](repeating: 0, count: 16)
        try derive(key: key, header: header, dataKey: &dataKey, check: &check)
        let stored = withUnsafeBytes(of: header.check) { Array($0) }
        guard constantTimeEqual(stored, check) else {
            throw ODataError(.key, "the key does not open '\(path)': a wrong key or passphrase (the file was not changed)")
        }
        return try register(dataKey: dataKey, header: header)
    }

    private static func derive(key: StoreKey, header: ood_cipher_header, dataKey: inout [UInt8],
                               check: inout [UInt8]) throws(ODataError) {
        var secret: [UInt8]
        switch key {
        case .raw(let bytes):
            guard bytes.count == 32 else { throw ODataError(.key, "a raw store key has 32 bytes (256 bits), not \(bytes.count)") }
            guard header.kdf == UInt16(OOD_CIPHER_KDF_RAW) else {
                throw ODataError(.key, "the store was encrypted with a passphrase, not a raw key")
            }
            secret = bytes
        case .passphrase(let text):
            guard !text.isEmpty else { throw ODataError(.key, "the passphrase is empty") }
            guard header.kdf == UInt16(OOD_CIPHER_KDF_PBKDF2_SHA256) else {
                throw ODataError(.key, "the store was encrypted with a raw key, not a passphrase")
            }
            secret = Array(text.utf8)
        }
        defer { wipe(&secret) }
        var salt = withUnsafeBytes(of: header.salt) { Array($0) }
        let rc = ood_cipher_derive(header.kdf, secret, secret.count, &salt, header.iterations, &dataKey, &check)
        guard rc == 0 else { throw ODataError(.internalError, "the key derivation failed") }
    }

    private static func register(dataKey: [UInt8], header: ood_cipher_header) throws(ODataError) -> CipherKeyHandle {
        var header = header
        let id = ood_cipher_key_register(dataKey, &header)
        guard id > 0 else { throw ODataError(.internalError, "cannot register the store key") }
        return CipherKeyHandle(id: id)
    }

    private static func ensureRegistered() throws(ODataError) {
        guard ood_cipher_register_vfs() == SQLITE_OK else {
            throw ODataError(.internalError, "cannot register the encrypting SQLite VFS")
        }
    }

    /// The name of SQLite's default VFS (a plain target written from an encrypted connection).
    static var defaultVFSName: String { String(cString: ood_cipher_default_vfs_name()) }

    /// Whether a page failed its authentication on this thread since the last call.
    static func takeAuthenticationFailure() -> Bool { ood_cipher_take_authentication_failure() != 0 }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { ood_cipher_wipe($0.baseAddress, $0.count) }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
