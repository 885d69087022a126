import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata log STORE [--limit N] [--json]`.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the store's sync log: its downloads, uploads and refused requests, newest first.",
        discussion: """
            Read-only: the store is not changed and the service is not contacted. The store keeps the \
            newest \(SyncLogEntry.capacity) entries, dropping the oldest first: one per download of a \
            defining request, one per upload, one per request the service refused.

            Examples:
              offline-odata log travel.store
              offline-odata log travel.store --limit 5 --json

            Output: a count line, then a table; with --json one object:
              {"capacity": N,
               "entries": [{"id", "at", "kind", "definingRequest", "requestID", "entities", "bytes",
                            "remaining", "durationMs", "outcome", "message"}]}
            where "kind" is download, upload or refusal; "outcome" is succeeded, failed or stopped \
            (a refusal's: refused, conflict or inDoubt); for a download "entities" and "bytes" are what \
            it received and "remaining" what the service announced (@odata.count, __count) beyond them, \
            for an upload the requests applied, the bytes of their bodies and the requests still queued.

            Exit codes: 0 success; 1 STORE does not exist or is not a store; 64 a usage error \
            (a negative --limit).
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Show only the newest N entries.")
    var limit: Int?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
    }

    func run() throws {
        do throws(ODataError) {
            let store = try openStore(path: path)
            defer { store.close() }
            let entries = try store.performAndWait(.syncLog(limit: limit))
            guard json else {
                printSyncLog(entries)
                return
            }
            printJSON { writer in
                writer.beginObject()
                writer.writeKey("capacity"); writer.writeNumber(SyncLogEntry.capacity)
                writer.writeKey("entries")
                writer.beginArray()
                for entry in entries { entry.write(to: &writer) }
                writer.endArray()
                writer.endObject()
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}
