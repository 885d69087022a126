import ArgumentParser
import OfflineOData

/// `offline-odata archive STORE [--delete ID | --delete-all] [--json]`.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "List the error archive (requests the service refused), or delete from it.",
        discussion: """
            Without --delete or --delete-all the archive is listed and nothing changes. Deleting an \
            archived request drops it for good; an entity with no archived request left is no \
            longer marked in error. Its local changes stay until a download replaces them.

            Examples:
              offline-odata archive travel.store
              offline-odata archive travel.store --json
              offline-odata archive travel.store --delete 12
              offline-odata archive travel.store --delete-all

            Output: a table of the archived requests; with --json an array:
              [{"id", "method", "url", "httpStatus", "message", "failedAt"}]

            Exit codes: 0 success; 1 the store or the request does not exist (the message says \
            which); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Delete the archived request with this id.")
    var delete: Int64?

    @Flag(help: "Delete every archived request.")
    var deleteAll = false

    @Flag(help: "Print JSON instead of a table (when listing).")
    var json = false

    func validate() throws {
        if delete != nil && deleteAll { throw ValidationError("--delete and --delete-all exclude each other") }
    }

    func run() throws {
        do throws(ODataError) {
            let store = try openExistingStore(path: path)
            defer { store.close() }
            if delete != nil || deleteAll {
                let count = try store.deleteArchivedRequests(id: delete)
                print("deleted \(count) archived request\(count == 1 ? "" : "s")")
                return
            }
            let archive = try store.file.errorArchive()
            if json {
                print(ArchivedRequest.jsonText(archive))
                return
            }
            printErrorArchive(archive)
        } catch {
            exitWithError(error)
        }
    }
}
