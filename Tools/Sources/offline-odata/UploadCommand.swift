import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata upload STORE`.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Send the store's queued changes to the service.",
        discussion: """
            Requests go first in, first out. A request leaves the queue only when the service's answer \
            proves it was applied. A request the service refuses because of the request itself (400, \
            403, 404, 409, 412, 422, ...) moves to the error archive with the later requests on the same \
            entity. An answer that says "not now" (401, 407, 408, 425, 429, 5xx, a CSRF token refused) \
            or a network failure stops the upload with the rest still queued, to be sent by a later \
            upload. A request whose answer was lost stays queued in doubt: the next upload checks whether \
            the service applied it before sending it again, and a create it cannot check goes to the \
            error archive as "inDoubt" for you to re-send or discard ('offline-odata archive').

            Examples:
              offline-odata upload travel.store
              OFFLINE_ODATA_PASSWORD=... offline-odata upload travel.store --user alice
              offline-odata upload travel.store --service http://127.0.0.1:8000/ \\
                  --timeout 60
              offline-odata upload travel.store --batch --batch-size 200 \\
                  --group-by-transaction
              offline-odata upload travel.store --batch --dry-run

            With --dry-run nothing is sent and nothing in the store changes: it prints the HTTP requests \
            the upload would send now, in order (with --batch the $batch bodies and their change sets), \
            with their headers: credentials masked (***), and values only the upload can know shown as \
            <placeholders> (the CSRF token, an ETag an earlier answer or a read brings, a first-sent \
            date). Requests in doubt are shown settled first. --json prints it as one JSON object \
            {"batch","steps":[{"kind","requestIDs","note","request","changeSets"}]}.

            With --batch the queue goes in $batch requests of at most --batch-size requests, each \
            request its own change set (requests on the same entity share one), or one change set \
            per transaction id with --group-by-transaction.

            A conflict (412: the entity changed on the service since the store read it; 409; 404 for \
            an update or delete of an entity gone from the service) is resolved by --conflicts, else by \
            the store's policy ('offline-odata store config'): archive (default), server-wins (the \
            change is dropped, recorded, and the store takes the service's entity), client-wins (sent \
            again on the service's version), merge (the changed fields sent again when the service \
            changed none of them, archived otherwise). See docs/CONFLICTS.md.

            First the queue is compacted ('offline-odata queue compact'): fewer requests, the same \
            result on the service. --no-compact sends it as it was queued.

            On a terminal a progress bar is drawn (on standard error, or standard output when only that \
            is a terminal); piped or redirected, nothing is drawn and only the \
            final line is printed: 'uploaded: N sent, M moved to the error archive (K in doubt)'. The bar \
            shows the requests answered of the queue, the bytes of request and answer bodies, the rate \
            (requests/s, bytes/s) and an estimate of the time left. With \
            --json one line: {"sent","archived","inDoubt","queued","compacted","discarded","bytesSent","bytesReceived"}, or {"error":{"code","status", \
            "message"[,"httpStatus"]}} when the upload stopped (the message is on standard error too).

            One upload at a time per store file: while another upload of the same store runs (another \
            'offline-odata upload', or a program using the store), this one stops at once, sending \
            nothing. The lock is the file STORE-upload.lock beside the store; it is released when the \
            upload ends, even when its process is killed.

            Exit codes: 0 every queued request was applied by the service; 3 the queue was worked \
            through but some requests went to the error archive (refused, in conflict, or in doubt: \
            see 'offline-odata archive'); 1 the upload stopped (the message says why; nothing is lost), \
            also when another upload of the same store is running; 64 a usage error; 130 or 143 \
            stopped by SIGINT (Ctrl-C) or SIGTERM. With --dry-run: 0, or 1 when the preview cannot be made.

            Ctrl-C (SIGINT) or SIGTERM stops the upload at a safe point: after the request in flight \
            is answered (one cut off might be applied and sent twice), the rest staying queued; the \
            command says so, closes the store and exits 130 or 143. A second Ctrl-C ends it at once \
            (the request in flight is then in doubt, and the next upload checks it).
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

    @Flag(help: "Send the queue as it was queued, without compacting it first.")
    var noCompact = false

    @Flag(help: "Print the outcome as one line of JSON.")
    var json = false

    @Flag(help: "Send nothing: print the requests the upload would send, in order.")
    var dryRun = false

    @Option(help: "This upload's conflict policy for every set: archive, server-wins, client-wins or merge (default: the store's, see 'store config').")
    var conflicts: String?

    func validate() throws {
        if let conflicts, ConflictPolicy(named: conflicts) == nil {
            throw ValidationError("unknown conflict policy '\(conflicts)': archive, server-wins, client-wins or merge")
        }
    }

    /// The exit code of an upload that worked through the queue with some requests archived.
    static let archivedExitCode: Int32 = 3

    func run() throws {
        // The exit code is used once ``upload()`` closed the store: every way out closes it first.
        let exitCode: Int32
        do throws(ODataError) {
            exitCode = try upload()
        } catch {
            exitWithError(error, json: json)
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// Runs the upload with the store open and closes it; gives the exit code (0, 3 for archived
    /// requests, 130/143 when a signal stopped it).
    private func upload() throws(ODataError) -> Int32 {
        do {
            let store = try openStore(path: path, service: service)
            defer { store.close() }
            var upload = UploadOptions(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction,
                                       compactsQueue: !noCompact)
            upload.conflictPolicy = conflicts.flatMap(ConflictPolicy.init(named:))
            if dryRun {
                let preview = try store.performAndWait(.previewUpload(upload))
                print(json ? preview.jsonText : UploadPreviewText.text(preview))
                return 0
            }
            let bar = WaitingState(ProgressBar())
            let meter = TransferMeter()
            upload.progress = { progress in
                let done = progress.sent + progress.archived
                bar.value.show("uploading", done: done, total: progress.total,
                               detail: "requests, " + meter.uploadDetail(done: done, total: progress.total, bytesSent: progress.bytesSent,
                                                                         bytesReceived: progress.bytesReceived))
                // A signal stops the upload here, after an answered request: nothing is in doubt.
                return Interruption.isRequested
            }
            let (result, signal) = Interruption.perform(.upload(upload), on: store, cancelsTransfer: false)
            bar.value.finish()
            if let signal, case .failure(let error) = result, error.code == .aborted {
                let queued = try store.performAndWait(.requestQueue).count
                let message = "upload interrupted by \(Interruption.name(of: signal)): stopped after the request in flight was "
                    + "answered; \(counted(queued, "request")) still queued for the next upload"
                if json { printJSONError(ODataError(.aborted, message)) }
                var standardError = StandardErrorStream()
                print(message, to: &standardError)
                return Interruption.exitCode(for: signal)
            }
            let outcome = try result.get()
            if let problem = outcome.recordingProblem { warn(problem) }
            if json {
                let queued = try store.performAndWait(.requestQueue).count
                printJSON { writer in
                    writer.beginObject()
                    writer.writeKey("sent"); writer.writeNumber(outcome.sent)
                    writer.writeKey("archived"); writer.writeNumber(outcome.archived)
                    writer.writeKey("inDoubt"); writer.writeNumber(outcome.inDoubt)
                    writer.writeKey("queued"); writer.writeNumber(queued)
                    writer.writeKey("compacted"); writer.writeNumber(outcome.compacted)
                    writer.writeKey("discarded"); writer.writeNumber(outcome.discarded)
                    writer.writeKey("bytesSent"); writer.writeNumber(outcome.bytesSent)
                    writer.writeKey("bytesReceived"); writer.writeNumber(outcome.bytesReceived)
                    writer.endObject()
                }
            } else {
                print("uploaded: \(outcome.sent) sent, \(outcome.archived) moved to the error archive (\(outcome.inDoubt) in doubt)"
                      + (outcome.discarded > 0 ? ", \(outcome.discarded) discarded by the conflict policy ('offline-odata archive --discarded')" : ""))
            }
            return outcome.archived > 0 ? Self.archivedExitCode : 0
        }
    }
}
