internal import CStoreCipher

/// How a store file is encrypted, as its plaintext header says (docs/ENCRYPTION.md), for
/// `store info`: whether a key is needed and which kind, never anything of the key itself.
@_spi(Tool) public struct StoreEncryption: Sendable, Equatable {
    /// How the data key comes from the user's key: a raw 256-bit key, or a passphrase stretched.
    public enum KeyDerivation: String, Sendable {
        case raw
        case pbkdf2SHA256 = "pbkdf2-hmac-sha256"
    }

    public var keyDerivation: KeyDerivation
    /// PBKDF2's iterations for a passphrase store; 0 for a raw key.
    public var iterations: Int
    /// Bytes of a page (the nonce and tag included).
    public var pageSize: Int

    /// The encryption of the file at `path`; nil for a plain (or missing, or damaged) file.
    static func of(path: String) -> StoreEncryption? {
        guard case .encrypted(let header) = StoreCipher.state(of: path) else { return nil }
        let raw = header.kdf == UInt16(OOD_CIPHER_KDF_RAW)
        return StoreEncryption(keyDerivation: raw ? .raw : .pbkdf2SHA256, iterations: raw ? 0 : Int(header.iterations),
                               pageSize: Int(header.page_size))
    }
}
