import ArgumentParser
import OfflineOData

/// `offline-odata upload STORE`.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Send the store's queued changes to the service.",
        discussion: """
            Requests go first in, first out. A request the service refuses (4xx) moves to the error
            archive with the later requests on the same entity; a server error (5xx) or a network
            failure stops the upload with the rest still queued, to be sent by a later upload.

            Example:
              offline-odata upload travel.store
              OFFLINE_ODATA_PASSWORD=... offline-odata upload travel.store --user alice
              offline-odata upload travel.store --batch --batch-size 200 --group-by-transaction

            With --batch the queue goes in $batch requests of at most --batch-size requests, each
            request its own change set (requests on the same entity share one), or one change set
            per transaction id with --group-by-transaction.

            Exit codes: 0 the queue was sent (some requests may be in the error archive: see
            'offline-odata status'); 1 the upload stopped (the message says why; nothing is lost).
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @OptionGroup var service: ServiceOptions

    @Flag(help: "Send the queue in $batch requests instead of one request at a time.")
    var batch = false

    @Option(help: "With --batch: at most this many queued requests per $batch.")
    var batchSize = 100

    @Flag(help: "With --batch: requests with the same transaction id go in one change set.")
    var groupByTransaction = false

    func run() throws {
        do throws(ODataError) {
            let store = try OfflineStore.open(path: path)
            defer { store.close() }
            try store.applyServiceOptions(service)
            var bar = ProgressBar()
            let outcome = try store.upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction) { progress in
                bar.show("uploading", done: progress.sent + progress.archived, total: progress.total)
                return true
            }
            bar.finish()
            print("uploaded: \(outcome.sent) sent, \(outcome.archived) moved to the error archive")
        } catch {
            exitWithError(error)
        }
    }
}

/// `offline-odata status STORE [--json]`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the request queue, the error archive and the defining requests of a store.",
        discussion: """
            Example:
              offline-odata status travel.store
              offline-odata status travel.store --json

            Exit codes: 0 success; 1 STORE is not a store made for a service.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do throws(ODataError) {
            guard fileExists(path) else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
            let store = try OfflineStore.open(path: path)
            defer { store.close() }
            let queue = try store.file.queuedRequests()
            let archive = try store.file.errorArchive()
            let requests = try store.definingRequests()
            if json {
                var writer = JSONWriter()
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
                print(String(decoding: writer.bytes, as: UTF8.self))
                return
            }
            print("queue: \(queue.count) request\(queue.count == 1 ? "" : "s") waiting for upload")
            for request in queue { print("  #\(request.id) \(request.method) \(request.url)") }
            print("error archive: \(archive.count)")
            for entry in archive {
                print("  #\(entry.request.id) \(entry.request.method) \(entry.request.url): \(entry.httpStatus.map(String.init) ?? "-") \(entry.message)")
            }
            print("defining requests: \(requests.count)")
            for request in requests {
                let delta = request.deltaLink == nil ? "" : ", delta link kept"
                print("  \(request.name) = \(request.url) (last download: \(request.lastDownload ?? "never")\(delta))")
            }
        } catch {
            exitWithError(error)
        }
    }
}

extension OfflineStore {
    /// Applies the command line's service options: credentials, TLS, and a service root override.
    func applyServiceOptions(_ options: ServiceOptions) throws(ODataError) {
        setHTTPOptions(try options.httpOptions())
        if let root = options.serviceRoot { try setServiceRoot(root) }
    }
}

/// `offline-odata download STORE [--subset NAME,...] [--full]`.
struct DownloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download the store's defining requests from the service.",
        discussion: """
            Each defining request is downloaded in one transaction: if it fails, its previous data
            stays whole. A request with a delta link from its last download gets only the changes,
            unless --full is given.

            Examples:
              offline-odata download travel.store
              offline-odata download travel.store --subset Agencies,Flights --full

            Exit codes: 0 every chosen defining request was downloaded; 1 a download failed (the
            message says which; the ones before it are stored).
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Only these defining requests (comma-separated names).")
    var subset: String?

    @Flag(help: "Download everything again, even where a delta link is kept.")
    var full = false

    @Option(help: "The page size to ask a V4 service for (Prefer: odata.maxpagesize).")
    var pageSize: Int?

    @OptionGroup var service: ServiceOptions

    func run() throws {
        do throws(ODataError) {
            let store = try OfflineStore.open(path: path)
            defer { store.close() }
            try store.applyServiceOptions(service)
            var bar = ProgressBar()
            let names = subset.map { $0.split(separator: ",").map { String($0) } }
            let outcomes = try store.download(subset: names, delta: !full, pageSize: pageSize) { progress in
                bar.show("downloading \(progress.definingRequest)", done: progress.entities, total: progress.expectedEntities,
                         detail: "entities, \(progress.pages) page\(progress.pages == 1 ? "" : "s")")
                return true
            }
            bar.finish()
            for outcome in outcomes {
                let kind = outcome.isDelta ? "changes" : "entities"
                print("downloaded \(outcome.definingRequest): \(outcome.entities) \(kind) in \(outcome.pages) page\(outcome.pages == 1 ? "" : "s")")
            }
        } catch {
            exitWithError(error)
        }
    }
}

/// The defining requests as a JSON array, the same in every read-only subcommand's `--json`.

/// `offline-odata archive STORE [--delete ID | --delete-all] [--json]`.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "List the error archive (requests the service refused), or delete from it.",
        discussion: """
            Deleting an archived request drops it for good; an entity with no archived request left
            is no longer marked in error. Its local changes stay until a download replaces them.

            Examples:
              offline-odata archive travel.store --json
              offline-odata archive travel.store --delete 12
              offline-odata archive travel.store --delete-all

            Exit codes: 0 success; 1 the store or the request does not exist (the message says which).
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Delete the archived request with this id.")
    var delete: Int64?

    @Flag(help: "Delete every archived request.")
    var deleteAll = false

    @Flag(help: "Print JSON instead of text (when listing).")
    var json = false

    func validate() throws {
        if delete != nil && deleteAll { throw ValidationError("--delete and --delete-all exclude each other") }
    }

    func run() throws {
        do throws(ODataError) {
            guard fileExists(path) else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
            let store = try OfflineStore.open(path: path)
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
            print("error archive: \(archive.count)")
            for entry in archive {
                print("  #\(entry.request.id) \(entry.request.method) \(entry.request.url): \(entry.httpStatus.map(String.init) ?? "-") \(entry.message)")
            }
        } catch {
            exitWithError(error)
        }
    }
}
