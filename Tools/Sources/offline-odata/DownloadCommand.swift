import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata download STORE [--subset NAME,...] [--full]`.
struct DownloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download the store's defining requests from the service.",
        discussion: """
            Each defining request's new data is stored in one transaction: if it fails, its previous \
            data stays whole. Pages are kept as they arrive, so a download killed or cut part-way \
            resumes at the page after the last one kept ('resuming NAME at page N' on standard \
            error). A request with a delta link from its last download gets only the changes, \
            unless --full is given.

            Every download first checks the service's $metadata against the store's model \
            ('offline-odata service check'): a compatible change is migrated and the download goes \
            on; any other stops it until 'offline-odata service adopt'. A $metadata the service \
            cannot answer now fails the download as a page would; one it does not serve (404, 501, \
            a page that is no metadata document) fails naming $metadata: --no-model-check skips the check.

            Examples:
              offline-odata download travel.store
              offline-odata download travel.store --subset Agencies,Flights --full
              offline-odata download travel.store --service http://127.0.0.1:8000/ \\
                  --page-size 100
              OFFLINE_ODATA_PASSWORD=... offline-odata download travel.store --user alice

            On a terminal a progress bar is drawn (on standard error, or standard output when only that \
            is a terminal); piped or redirected, nothing is drawn and only the \
            final lines are printed, one per defining request: 'downloaded NAME: N entities in P pages'. \
            The bar shows entities, bytes, the rate and, when the service announced a total \
            (@odata.count, V2 __count: ask for it with $count=true or $inlinecount=allpages in the defining \
            request), the total and an estimate of the time left. With --json one line: \
            {"downloads":[{"definingRequest","entities","pages","bytes","expectedEntities","delta","fetchedPages"[,"resumedAtPage"]}]}, or \
            {"error":{"code","status","message"[,"httpStatus"]}} when a download failed (the message is \
            on standard error too).

            Ctrl-C (SIGINT) or SIGTERM stops the download at a safe point: the page in transfer is \
            dropped, the pages kept so far stay for the next download to resume from, the command \
            says so, closes the store and exits 130 (SIGINT) or 143 (SIGTERM). A second Ctrl-C ends \
            it at once (nothing is lost either: the next command checks the store).

            Exit codes: 0 every chosen defining request was downloaded; 1 a download failed (the \
            message says which; the ones before it are stored); 64 a usage error; 130 or 143 \
            stopped by SIGINT or SIGTERM.
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

    @Flag(help: "Do not check the service's $metadata first (for a service that never serves it).")
    var noModelCheck = false

    @OptionGroup var service: ServiceOptions

    @Flag(help: "Print the outcome as one line of JSON.")
    var json = false

    func run() throws {
        // The exit code is used once ``download()`` closed the store: every way out closes it first.
        let exitCode: Int32
        do throws(ODataError) {
            exitCode = try download()
        } catch {
            exitWithError(error, json: json)
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// Runs the download with the store open and closes it; gives the exit code (0, or 130/143
    /// when a signal stopped it).
    private func download() throws(ODataError) -> Int32 {
        do {
            var options = ODataStore.Options(path: path, serviceRoot: service.serviceRoot)
            options.creation = .openExisting
            options.downloadsOnFirstOpen = false
            options.http = try service.httpOptions()
            options.savesServiceRoot = service.saveService
            options.pageSize = pageSize
            let store = try openStore(options)
            defer { store.close() }
            let display = WaitingState((bar: ProgressBar(), meter: TransferMeter(), current: String?.none,
                                        announcedResumption: String?.none))
            let names = subset.map { $0.split(separator: ",").map { String($0) } }
            var download = DownloadOptions(subset: names, full: full) { progress in
                if let page = progress.resumedAtPage, display.value.announcedResumption != progress.definingRequest {
                    // Said once per defining request, also when no bar is drawn: the pages before were kept.
                    display.value.announcedResumption = progress.definingRequest
                    display.value.bar.finish()
                    var standardError = StandardErrorStream()
                    print("resuming \(progress.definingRequest) at page \(page) (\(counted(page - 1, "page")) kept from an interrupted download)", to: &standardError)
                }
                if display.value.current != progress.definingRequest {
                    display.value.current = progress.definingRequest
                    display.value.meter.restart()
                }
                let noun = progress.entities == 1 ? "entity" : "entities"
                let detail = display.value.meter.detail(done: progress.entities, total: progress.expectedEntities,
                                                        bytes: progress.bytes, pages: progress.pages, noun: "entities")
                display.value.bar.show("downloading \(progress.definingRequest)", done: progress.entities,
                                       total: progress.expectedEntities, detail: "\(noun), " + detail)
                return false
            }
            download.checksServiceModel = !noModelCheck
            let (result, signal) = Interruption.perform(.download(download), on: store, cancelsTransfer: true)
            display.value.bar.finish()
            if let signal, case .failure(let error) = result, error.code == .aborted {
                // Stopped at a safe point: say so and what is kept, then end as the signal asks
                // (the store is closed first, by the `defer` above).
                try reportInterruption(by: signal, of: store)
                return Interruption.exitCode(for: signal)
            }
            let outcomes = try result.get()
            for problem in outcomes.compactMap(\.recordingProblem).prefix(1) { warn(problem) }
            if json {
                print(DownloadOutcome.jsonText(outcomes))
                return 0
            }
            for outcome in outcomes {
                let what = outcome.isDelta ? counted(outcome.entities, "change") : counted(outcome.entities, "entity", "entities")
                let resumed = outcome.resumedAtPage.map { ", resumed at page \($0)" } ?? ""
                print("downloaded \(outcome.definingRequest): \(what) in \(counted(outcome.pages, "page"))\(resumed)")
            }
        }
        return 0
    }

    /// What a download a signal stopped says: on standard error for people, and with --json the
    /// error object (code OOD_ABORTED) on standard output; the kept pages are what the next
    /// download resumes from.
    private func reportInterruption(by signal: Int32, of store: ODataStore) throws(ODataError) {
        let kept = try store.performAndWait(.keptDownloads)
        let pages = kept.reduce(0) { $0 + $1.pages }
        let what = kept.isEmpty ? "no pages kept" : "\(counted(pages, "page")) kept for resuming ("
            + kept.map { "\($0.definingRequest): \(counted($0.pages, "page"))" }.joined(separator: ", ") + ")"
        let message = "download interrupted by \(Interruption.name(of: signal)): stopped at a safe point, \(what); "
            + "'offline-odata download' goes on from there"
        if json { printJSONError(ODataError(.aborted, message)) }
        var standardError = StandardErrorStream()
        print(message, to: &standardError)
    }
}
