import ArgumentParser
import OfflineOData

/// `offline-odata upload STORE`.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Send the store's queued changes to the service.",
        discussion: """
            Requests go first in, first out. A request the service refuses (4xx) moves to the error \
            archive with the later requests on the same entity; a server error (5xx) or a network \
            failure stops the upload with the rest still queued, to be sent by a later upload.

            Examples:
              offline-odata upload travel.store
              OFFLINE_ODATA_PASSWORD=... offline-odata upload travel.store --user alice
              offline-odata upload travel.store --service http://127.0.0.1:8000/ \\
                  --timeout 60
              offline-odata upload travel.store --batch --batch-size 200 \\
                  --group-by-transaction

            With --batch the queue goes in $batch requests of at most --batch-size requests, each \
            request its own change set (requests on the same entity share one), or one change set \
            per transaction id with --group-by-transaction.

            On a terminal a progress bar is drawn (on standard error, or standard output when only that \
            is a terminal); piped or redirected, nothing is drawn and only the \
            final line is printed: 'uploaded: N sent, M moved to the error archive'.

            One upload at a time per store file: while another upload of the same store runs (another \
            'offline-odata upload', or a program using the store), this one stops at once, sending \
            nothing. The lock is the file STORE-upload.lock beside the store; it is released when the \
            upload ends, even when its process is killed.

            Exit codes: 0 the queue was sent (some requests may be in the error archive: see \
            'offline-odata status'); 1 the upload stopped (the message says why; nothing is lost), \
            also when another upload of the same store is running; 64 a usage error.
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
            let store = try openExistingStore(path: path)
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
