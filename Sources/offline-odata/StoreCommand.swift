import ArgumentParser
import OfflineOData

/// `offline-odata store ...`: store files.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create and inspect store files.",
        subcommands: [Create.self]
    )

    /// `offline-odata store create PATH`.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a store file (or check that PATH already is one).",
            discussion: """
                Example:
                  offline-odata store create travel.store

                Exit codes: 0 the store exists now; 1 PATH cannot be opened or is not a store.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        func run() throws {
            let existed = fileExists(path)
            do {
                let store = try StoreFile(path: path)
                defer { store.close() }
                let version = try store.formatVersion()
                let mode = try store.journalMode()
                let verb = existed ? "already a store" : "created"
                print("\(path): \(verb) (format version \(version), journal mode \(mode))")
            } catch {
                exitWithError(error)
            }
        }
    }
}
