import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata store rekey STORE (--new-key-file FILE | --new-passphrase-env NAME | --decrypt)`.
struct StoreRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Change the key of a store file: encrypt, decrypt or re-encrypt it.",
        discussion: """
            The current key comes from --key-file or --passphrase-env (none for a plain store); the \
            new one from --new-key-file or --new-passphrase-env, or --decrypt for a plain store. The \
            command opens the store and changes its key as an app does on its open store (the \
            rekey operation); no other process may have it open. A process killed during a rekey \
            leaves a store that opens with exactly one of the two keys. See docs/ENCRYPTION.md.

            Examples:
              head -c 32 /dev/urandom | xxd -p -c 64 > travel.key
              offline-odata store rekey travel.store --new-key-file travel.key
              offline-odata store rekey travel.store --key-file travel.key --new-passphrase-env TRAVEL_PASS
              offline-odata store rekey travel.store --passphrase-env TRAVEL_PASS --decrypt

            Exit codes: 0 rekeyed; 1 an error (a wrong key: nothing changed); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "The new key: a file holding 64 hex digits or a passphrase.")
    var newKeyFile: String?

    @Option(help: "The new passphrase, from this environment variable.")
    var newPassphraseEnv: String?

    @Flag(help: "Leave the store plain (no key).")
    var decrypt = false

    func validate() throws {
        let given = [newKeyFile != nil, newPassphraseEnv != nil, decrypt].filter { $0 }.count
        guard given == 1 else {
            throw ValidationError("give exactly one of --new-key-file, --new-passphrase-env, --decrypt")
        }
    }

    func run() throws {
        do throws(ODataError) {
            let newKey: StoreKey?
            if let newKeyFile {
                newKey = try ToolKey.fromFile(newKeyFile)
            } else if let newPassphraseEnv {
                newKey = try ToolKey.fromEnvironment(newPassphraseEnv)
            } else {
                newKey = nil
            }
            let store = try openStore(path: path, mode: .offline)
            defer { store.close() }
            try store.performAndWait(.rekey(to: newKey))
            print("\(path): \(newKey == nil ? "decrypted" : "encrypted with the new key")")
        } catch {
            exitWithError(error)
        }
    }
}
