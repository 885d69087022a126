#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// `--key-file FILE` and `--passphrase-env NAME`: the key of an encrypted store, for every command
/// that opens one (docs/ENCRYPTION.md). Never a key on the command line (it would show in `ps`
/// and the shell's history): a file holding 64 hex digits (a raw key) or a passphrase (its first
/// line), or an environment variable holding a passphrase.
///
/// Taken out of the arguments before the subcommand parses them (``GlobalOption``), so every
/// subcommand has them.
enum ToolKey {
    /// The key the command line named, if any.
    nonisolated(unsafe) static var current: StoreKey?

    static let help = """
        Encrypted stores (docs/ENCRYPTION.md), for every command: --key-file FILE (64 hex digits, \
        a raw key, or else the file's first line as a passphrase) or --passphrase-env NAME (the \
        passphrase in that environment variable). Never a key on the command line. \
        `store rekey` changes a store's key.
        """

    /// Removes `--key-file`/`--passphrase-env` (and their values) from `arguments`, returning the key.
    static func extract(from arguments: inout [String]) throws(ODataError) -> StoreKey? {
        guard let (name, value) = try GlobalOption.extract(["--key-file", "--passphrase-env"], from: &arguments,
                                                           tooMany: "give one --key-file or --passphrase-env, not more") else {
            return nil
        }
        return name == "--key-file" ? try fromFile(value) : try fromEnvironment(value)
    }

    /// A raw key (64 hex digits) or a passphrase (the first line) from the file at `path`.
    static func fromFile(_ path: String) throws(ODataError) -> StoreKey {
        guard let file = fopen(path, "rb") else {
            throw ODataError(.misuse, "--key-file: cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        let firstLine = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        let text = String(decoding: firstLine, as: UTF8.self)
        let trimmed = String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if let raw = StoreKey.fromHex(trimmed) { return raw }
        guard !text.isEmpty else { throw ODataError(.misuse, "--key-file: '\(path)' holds no key (its first line is empty)") }
        return .passphrase(text)
    }

    /// The passphrase in the environment variable `name`.
    static func fromEnvironment(_ name: String) throws(ODataError) -> StoreKey {
        guard let value = getenv(name), value.pointee != 0 else {
            throw ODataError(.misuse, "--passphrase-env: the environment variable \(name) is not set or empty")
        }
        return .passphrase(String(cString: value))
    }
}
