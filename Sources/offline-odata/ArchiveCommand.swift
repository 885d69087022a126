import ArgumentParser
import OfflineOData

/// `offline-odata archive STORE [--requeue ID [--body JSON] | --delete ID | --delete-all] [--json]`.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "List the error archive (requests the service refused or that need a decision), send one again, or discard.",
        discussion: """
            Without --requeue, --delete or --delete-all the archive is listed and nothing changes. \
            Each archived request has a kind: refused (the service refused it), conflict (the \
            entity changed on the service: 412, 409, 428) or inDoubt (sent, its answer lost, and \
            the engine cannot find out whether the service applied it: a decision is needed).

            --requeue ID sends the archived request again: it goes back into the request queue at \
            its place in upload order, with the later archived requests on its entity, and the \
            next upload sends them. --body replaces its JSON body first; the body is checked \
            against the model like a local write's, and the entity takes its values.

            --delete ID discards the archived request with the requests that build on it (the \
            later requests on its entity, archived or still queued). When it was the entity's \
            earliest request, the entity gets back what the service last sent, as after an undo: \
            one created offline leaves the store. --delete-all does this for every archived request.

            Examples:
              offline-odata archive travel.store
              offline-odata archive travel.store --json
              offline-odata archive travel.store --requeue 12
              offline-odata archive travel.store --requeue 12 --body '{"name":"Corrected"}'
              offline-odata archive travel.store --delete 12
              offline-odata archive travel.store --delete-all

            Output: a table of the archived requests; with --json an array:
              [{"id", "method", "url", "httpStatus", "message", "failedAt", "kind"}]

            Exit codes: 0 success; 1 the store or the request does not exist, or the body is \
            refused (the message says which); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Send the archived request with this id again (with the later archived requests on its entity).")
    var requeue: Int64?

    @Option(help: "With --requeue: the corrected JSON body of the request.")
    var body: String?

    @Option(help: "Discard the archived request with this id, with the requests that build on it.")
    var delete: Int64?

    @Flag(help: "Discard every archived request, with the requests that build on them.")
    var deleteAll = false

    @Flag(help: "Print JSON instead of a table (when listing).")
    var json = false

    func validate() throws {
        let actions = [requeue != nil, delete != nil, deleteAll].filter { $0 }.count
        if actions > 1 { throw ValidationError("--requeue, --delete and --delete-all exclude each other") }
        if body != nil && requeue == nil { throw ValidationError("--body goes with --requeue") }
    }

    func run() throws {
        do throws(ODataError) {
            let store = try openExistingStore(path: path)
            defer { store.close() }
            if let requeue {
                let count = try store.requeueArchivedRequest(id: requeue, body: body)
                print("requeued \(count) request\(count == 1 ? "" : "s")")
                return
            }
            if delete != nil || deleteAll {
                let count = try store.deleteArchivedRequests(id: delete)
                print("discarded \(count) request\(count == 1 ? "" : "s")")
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
