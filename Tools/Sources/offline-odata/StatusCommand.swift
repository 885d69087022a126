import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata status STORE [--json]`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a store's service root, its state, request queue, error archive and defining requests.",
        discussion: """
            Read-only: the store is not changed and the service is not contacted.

            Examples:
              offline-odata status travel.store
              offline-odata status travel.store --json

            Output: the service root and the state (downloaded or not, what waits for upload), \
            'resumable: N pages kept (...)' when an interrupted download kept pages to resume from, \
            then four tables (queue, error archive, defining requests, indexes), each after its count; \
            with --json one object:
              {"serviceRoot": "..." or null,
               "state": {"download": "none|never|partial|complete", "lastDownload",
                         "queued", "inDoubt", "archived"},
               "queue": [{"id", "method", "url", "body", "entitySet",
                          "transactionID", "createdAt", "state", "mergeable"}],
               "errorArchive": [{"id", "method", "url", "httpStatus", "message",
                                 "failedAt", "kind"}],
               "definingRequests": [{"name", "url", "lastDownload", "hasDeltaLink"}],
               "indexes": [{"entitySet", "properties", "name", "origin", "reason", "createdAt"}],
               "sync": {"downloads": [{"definingRequest", "entities", "bytes", "pages", "durationMs",
                                       "expectedEntities", "outcome", "message", "finishedAt",
                                       "lastSuccessAt"}],
                        "queuedRequests", "oldestQueuedAt", "oldestQueuedAgeSeconds", "queuedInDoubt",
                        "archivedRequests", "archivedInDoubt",
                        "lastUpload": {"sent", "archived", "bytes", "durationMs", "outcome", "message",
                                       "finishedAt", "lastSuccessAt"} or null},
               "resumable": [{"definingRequest", "pages", "entities"}],
               "serviceModelChange": null or the last 'service check' that found the service's \
            $metadata changed and not adopted yet}
            where "download" is "none" without defining requests, "never" before the first \
            download, "partial" when some were never downloaded, and "lastDownload" the newest; an \
            index's "origin" is "declared" (store create --index, or an app's option) or "automatic"; \
            "sync" holds the last download of each defining request (its "outcome" succeeded, failed or \
            stopped) and the last upload, kept in the store (see also 'offline-odata log').

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
            let store = try openStore(path: path)
            defer { store.close() }
            let queue = try store.performAndWait(.requestQueue)
            let archive = try store.performAndWait(.errorArchive)
            let status = try store.performAndWait(.status)
            let requests = status.definingRequests
            // The root the file keeps, as written (the service client adds a trailing slash).
            let root = try store.performAndWait(.describe).serviceRoot
            let indexes = status.indexes
            let sync = try store.performAndWait(.syncStatistics)
            let kept = try store.performAndWait(.keptDownloads)
            let state = StoreSummary(queue: queue, archive: archive, definingRequests: requests)
            if json {
                printJSON { writer in
                    writer.beginObject()
                    writer.writeKey("serviceRoot"); root.map { writer.writeString($0) } ?? writer.writeNull()
                    writer.writeKey("state")
                    state.write(to: &writer)
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
                    writer.writeKey("indexes")
                    StoreIndex.write(indexes, to: &writer)
                    writer.writeKey("sync")
                    sync.write(to: &writer)
                    writer.writeKey("resumable")
                    writer.beginArray()
                    for download in kept {
                        writer.beginObject()
                        writer.writeKey("definingRequest"); writer.writeString(download.definingRequest)
                        writer.writeKey("pages"); writer.writeNumber(download.pages)
                        writer.writeKey("entities"); writer.writeNumber(download.entities)
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.writeKey("serviceModelChange")
                    writer.writeValue(status.serviceModelChange.flatMap { try? JSONValue.parse($0) } ?? .null)
                    writer.endObject()
                }
                return
            }
            print("service: \(root ?? "none (give one with --service and --save-service)")")
            print("state: \(state.summary)")
            if !kept.isEmpty {
                // An interrupted download's pages are not in the tables yet: without this line it
                // would look as if it never ran.
                let pages = kept.reduce(0) { $0 + $1.pages }
                print("resumable: \(counted(pages, "page")) kept ("
                      + kept.map { "\(terminalSafe($0.definingRequest)): \(counted($0.pages, "page")), \(counted($0.entities, "entity", "entities"))" }
                        .joined(separator: "; ") + "); 'offline-odata download' goes on from there")
            }
            if let change = status.serviceModelChange.flatMap({ try? JSONValue.parse($0) }) {
                print("service model: changed (\(change["impact"]?.stringValue ?? "?")); see 'offline-odata service check', "
                      + "adopt with 'offline-odata service adopt'")
            }
            printQueue(queue)
            printErrorArchive(archive)
            printDefiningRequests(requests)
            printIndexes(indexes)
            printSyncStatistics(sync)
        } catch {
            exitWithError(error, json: json)
        }
    }
}

/// What `status` says of a store as a whole: how far it is downloaded, and what waits for upload.
private struct StoreSummary {
    let download: String
    let lastDownload: String?
    let queued: Int
    let inDoubt: Int
    let archived: Int

    init(queue: [QueuedRequest], archive: [ArchivedRequest], definingRequests: [DefiningRequest]) {
        let downloaded = definingRequests.compactMap(\.lastDownload)
        download = definingRequests.isEmpty ? "none" : downloaded.isEmpty ? "never"
            : downloaded.count < definingRequests.count ? "partial" : "complete"
        lastDownload = downloaded.max()
        queued = queue.count
        inDoubt = queue.filter { $0.state == .inDoubt }.count
        archived = archive.count
    }

    /// One line for people: "downloaded (last 2026-11-26T10:00:00Z); 2 requests waiting for upload".
    var summary: String {
        var parts: [String] = []
        switch download {
        case "none": parts.append("no defining requests")
        case "never": parts.append("never downloaded")
        case "partial": parts.append("partly downloaded (last \(lastDownload ?? "-"))")
        default: parts.append("downloaded (last \(lastDownload ?? "-"))")
        }
        parts.append(queued == 0 ? "nothing to upload" : "\(counted(queued, "request")) waiting for upload"
                     + (inDoubt == 0 ? "" : " (\(inDoubt) in doubt)"))
        if archived > 0 { parts.append("\(counted(archived, "archived request")) need\(archived == 1 ? "s" : "") a decision") }
        return parts.joined(separator: "; ")
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("download"); writer.writeString(download)
        writer.writeKey("lastDownload"); lastDownload.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("queued"); writer.writeNumber(queued)
        writer.writeKey("inDoubt"); writer.writeNumber(inDoubt)
        writer.writeKey("archived"); writer.writeNumber(archived)
        writer.endObject()
    }
}
