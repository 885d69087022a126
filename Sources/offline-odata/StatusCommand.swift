import ArgumentParser
import OfflineOData

/// `offline-odata status STORE [--json]`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the request queue, the error archive and the defining requests of a store.",
        discussion: """
            Read-only: the store is not changed and the service is not contacted.

            Examples:
              offline-odata status travel.store
              offline-odata status travel.store --json

            Output: three tables (queue, error archive, defining requests), each after its count; \
            with --json one object:
              {"queue": [{"id", "method", "url", "body", "entitySet",
                          "transactionID", "createdAt", "state"}],
               "errorArchive": [{"id", "method", "url", "httpStatus", "message",
                                 "failedAt", "kind"}],
               "definingRequests": [{"name", "url", "lastDownload", "hasDeltaLink"}]}

            Exit codes: 0 success; 1 STORE does not exist or is not a store made for a service; \
            64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Flag(help: "Print JSON instead of tables.")
    var json = false

    func run() throws {
        do throws(ODataError) {
            let store = try openExistingStore(path: path)
            defer { store.close() }
            let queue = try store.file.queuedRequests()
            let archive = try store.file.errorArchive()
            let requests = try store.definingRequests()
            if json {
                printJSON { writer in
                    writer.beginObject()
                    writer.writeKey("queue")
                    writer.beginArray()
                    for request in queue { request.write(to: &writer) }
                    writer.endArray()
                    writer.writeKey("errorArchive")
                    writer.beginArray()
                    for entry in archive { entry.write(to: &writer) }
                    writer.endArray()
                    writer.writeKey("definingRequests")
                    DefiningRequest.write(requests, to: &writer)
                    writer.endObject()
                }
                return
            }
            printQueue(queue)
            printErrorArchive(archive)
            printDefiningRequests(requests)
        } catch {
            exitWithError(error)
        }
    }
}
