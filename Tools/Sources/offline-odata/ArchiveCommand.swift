import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata archive STORE [--requeue ID [--body JSON] | --delete ID | --delete-all |
/// --redownload URL [service options]] [--json]`.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "List the error archive (requests the service refused or that need a decision), send one again, discard, or re-download an entity.",
        discussion: """
            Without --requeue, --delete, --delete-all or --redownload the archive is listed and nothing changes. \
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

            --redownload URL reads one entity, addressed by its key, from the service again and \
            gives the store the service's version: its values and ETag, no longer marked changed or \
            in error (updated), or, when the service answers 404, the entity leaves the store \
            (removed). For after a discard, or whenever the service's current values are wanted. An \
            entity with queued or archived requests is refused: upload, discard or undo them first. \
            It takes the service options of 'upload' (--service, --user, --token, --insecure, --timeout).

            Examples:
              offline-odata archive travel.store
              offline-odata archive travel.store --json
              offline-odata archive travel.store --requeue 12
              offline-odata archive travel.store --requeue 12 --body '{"name":"Corrected"}'
              offline-odata archive travel.store --delete 12
              offline-odata archive travel.store --delete-all
              offline-odata archive travel.store \\
                  --redownload "TravelagencyCollection('00000001')"

            Output: a table of the archived requests; with --json one object:
              {"errorArchive": [{"id", "kind", "method", "url", "httpStatus", "message", "failedAt"[, "conflict"]}]}
            An entry archived by a conflict has "conflict": {"policy", "httpStatus", "original" (the values \
            the change was made on), "local" (the change), "served" (the service's entity when the \
            conflict was met; null when gone), "properties": [{"name", "original", "local", "served", \
            "changedBy": local|service|both|same}]}. --discarded lists the changes a conflict policy \
            dropped in the same shape ({"discardedChanges": [...]}); --clear-discarded forgets them.
            With --redownload: 'redownloaded URL: updated|removed'; with --json {"entitySet", "action"}. \
            With --requeue or --delete(-all) and --json: {"requeued": N} or {"discarded": N}. An error \
            with --json: {"error": {"code", "status", "message"[, "httpStatus"]}} on standard output.

            Exit codes: 0 success; 1 the store or the request does not exist, or the body is \
            refused, or the re-download is refused or the service failed (the message says which); \
            64 a usage error.
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

    @Option(help: "Read the entity at this URL (one entity by its key) from the service again.")
    var redownload: String?

    @Flag(help: "List the local changes a conflict policy discarded (server wins), with the service's entity beside each.")
    var discarded = false

    @Flag(help: "Forget the record of the changes a conflict policy discarded.")
    var clearDiscarded = false

    @OptionGroup var service: ServiceOptions

    @Flag(help: "Print one JSON object instead of a table or a line.")
    var json = false

    func validate() throws {
        let actions = [requeue != nil, delete != nil, deleteAll, redownload != nil, discarded, clearDiscarded].filter { $0 }.count
        if actions > 1 {
            throw ValidationError("--requeue, --delete, --delete-all, --redownload, --discarded and --clear-discarded exclude each other")
        }
        let serviceGiven = service.serviceRoot != nil || service.user != nil || service.token != nil
            || service.insecure || service.timeout != nil
        if serviceGiven && redownload == nil {
            throw ValidationError("--service, --user, --token, --insecure and --timeout go with --redownload")
        }
        if body != nil && requeue == nil { throw ValidationError("--body goes with --requeue") }
    }

    func run() throws {
        do throws(ODataError) {
            // The service options only for a re-download: nothing else asks the service (or the user's password).
            let store = try openStore(path: path, service: redownload == nil ? nil : service)
            defer { store.close() }
            if let requeue {
                let count = try store.performAndWait(.requeueArchivedRequest(id: requeue, body: body))
                print(json ? "{\"requeued\":\(count)}" : "requeued \(counted(count, "request"))")
                return
            }
            if let redownload {
                let outcome = try store.performAndWait(.redownloadEntity(url: redownload))
                print(json ? outcome.jsonText : "redownloaded \(redownload): \(outcome.action.rawValue)")
                return
            }
            if discarded {
                let changes = try store.performAndWait(.discardedChanges)
                if json {
                    print("{\"discardedChanges\":" + ConflictDetail.jsonText(changes) + "}")
                } else {
                    if changes.isEmpty { print("no discarded changes") }
                    for change in changes {
                        let who = change.properties.map { "\($0.name): \($0.changedBy.rawValue)" }.joined(separator: ", ")
                        print("#\(change.requestID) \(change.method.rawValue) \(change.url) (\(change.policy), \(change.at)): \(who)")
                    }
                }
                return
            }
            if clearDiscarded {
                let count = try store.performAndWait(.clearDiscardedChanges)
                print(json ? "{\"cleared\":\(count)}" : "cleared \(counted(count, "discarded change"))")
                return
            }
            if delete != nil || deleteAll {
                let count = try store.performAndWait(.deleteArchivedRequests(id: delete))
                print(json ? "{\"discarded\":\(count)}" : "discarded \(counted(count, "request"))")
                return
            }
            let archive = try store.performAndWait(.errorArchive)
            if json {
                print("{\"errorArchive\":" + ArchivedRequest.jsonText(archive) + "}")
                return
            }
            printErrorArchive(archive)
        } catch {
            exitWithError(error, json: json)
        }
    }
}
