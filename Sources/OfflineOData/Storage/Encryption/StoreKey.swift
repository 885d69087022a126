/// The key of an encrypted store file (docs/ENCRYPTION.md).
///
/// The engine never stores it: a store whose key is lost cannot be read by anyone. It is never
/// logged nor put into an error message or event; `description` and `dump` show no byte of it.
public enum StoreKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A raw 256-bit key (32 bytes), used as it is: opening costs no key derivation.
    case raw([UInt8])
    /// A passphrase, stretched with PBKDF2-HMAC-SHA256 and the store's own salt (about 100 ms).
    case passphrase(String)

    /// A raw key from 64 hexadecimal digits (the tool's key file), or nil for any other text.
    public static func fromHex(_ text: String) -> StoreKey? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < 64 {
            guard let first = digits.element(at: index), let second = digits.element(at: index + 1),
                  let high = Self.hexValue(first), let low = Self.hexValue(second) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return .raw(bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .raw: "StoreKey.raw(<redacted>)"
        case .passphrase: "StoreKey.passphrase(<redacted>)"
        }
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
