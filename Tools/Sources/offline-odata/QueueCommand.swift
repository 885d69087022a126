import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata queue ...`: the request queue of local changes.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Work on the queue of local changes waiting for upload.",
        discussion: """
            'offline-odata status' lists the queue; 'offline-odata upload' sends it.

            Examples:
              offline-odata queue compact travel.store
              offline-odata queue compact travel.store --json

            Exit codes: those of each subcommand: 0 success; 1 an error (the message says which); \
            64 a usage error.
            """,
        subcommands: [Compact.self]
    )
}
