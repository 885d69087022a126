import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata store hand-over STORE --to NAME (--upload-first | --discard | --keep-apart [--kept-path P])`.
struct StoreHandOverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-over",
        abstract: "Give a store to the next user of a shared device.",
        discussion: """
            What becomes of the previous user's pending changes: --upload-first uploads them with \
            the previous user's credentials (--user and OFFLINE_ODATA_PASSWORD, or --token: used \
            for this one upload, never kept); --discard drops them, each recorded as a discarded \
            change (archive --discarded shows them until archive --clear-discarded); --keep-apart \
            renames the previous user's store whole (to --kept-path, default STORE.USER) and makes \
            a new empty one at STORE. Afterwards the store belongs to --to and holds nothing of the \
            previous user's; its next download fills it. The store's key now comes from \
            --key-file/--passphrase-env, the new user's from --new-key-file/--new-passphrase-env. \
            See docs/SHARED-DEVICE.md.

            Examples:
              OFFLINE_ODATA_PASSWORD=... offline-odata store hand-over travel.store --to bob \\
                  --upload-first --user alice
              offline-odata store hand-over travel.store --to bob --discard --json
              offline-odata --store-user bob download travel.store --user bob

            Exit codes: 0 handed over; 1 an error (nothing of the previous user's dropped); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file (closed everywhere).")
    var path: String

    @Option(help: "The next user's name.")
    var to: String

    @Flag(help: "Upload the previous user's changes first, with their credentials.")
    var uploadFirst = false

    @Flag(help: "Discard the previous user's changes, each recorded.")
    var discard = false

    @Flag(help: "Keep the previous user's store apart, whole.")
    var keepApart = false

    @Option(help: "Where --keep-apart puts the previous user's store (default: STORE.USER).")
    var keptPath: String?

    @Option(help: "The new user's key: a file holding 64 hex digits or a passphrase.")
    var newKeyFile: String?

    @Option(help: "The new user's passphrase, from this environment variable.")
    var newPassphraseEnv: String?

    @Flag(help: "Print the outcome as JSON.")
    var json = false

    @OptionGroup var service: ServiceOptions

    func validate() throws {
        guard [uploadFirst, discard, keepApart].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --upload-first, --discard, --keep-apart")
        }
        guard keptPath == nil || keepApart else { throw ValidationError("--kept-path goes with --keep-apart") }
        guard newKeyFile == nil || newPassphraseEnv == nil else {
            throw ValidationError("give --new-key-file or --new-passphrase-env, not both")
        }
    }

    func run() throws {
        do throws(ODataError) {
            var newKey: StoreKey?
            if let newKeyFile { newKey = try ToolKey.fromFile(newKeyFile) }
            if let newPassphraseEnv { newKey = try ToolKey.fromEnvironment(newPassphraseEnv) }
            let choice: HandOverChoice
            if uploadFirst {
                choice = .uploadFirst(credentials: try service.httpOptions())
            } else if discard {
                choice = .discard
            } else {
                choice = .keepApart(path: keptPath)
            }
            let outcome = try ODataStore.handOver(path: path, key: ToolKey.current, to: to, newKey: newKey, choice: choice)
            if json {
                print(outcome.jsonText)
            } else {
                let previous = outcome.previousUser.map { "user '\($0)'" } ?? "nobody"
                var line = "\(path): handed over from \(previous) to user '\(outcome.newUser)'"
                if uploadFirst { line += "; \(outcome.uploaded) change(s) uploaded first" }
                if outcome.discarded > 0 { line += "; \(outcome.discarded) change(s) recorded as discarded" }
                if let kept = outcome.keptAt { line += "; the previous store is kept at \(kept)" }
                print(terminalSafe(line))
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}
