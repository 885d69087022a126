#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata watch STORE URL [--json] [--interval S] [--limit N]`: a live query on the command line.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a local read's answer, then each new answer when the store changes.",
        discussion: """
            The current answer first, then a new one each time a committed change to the store \
            file changes it: this tool or another process writing, downloading or uploading. A \
            change that leaves the answer as it was prints nothing; changes close together print \
            once (--interval, 0.03 s by default). Reads the store file only: the service is not \
            contacted.

            Examples:
              offline-odata watch travel.store "TravelagencyCollection?\\$filter=city eq 'Boston'"
              offline-odata watch travel.store --json "TravelagencyCollection/\\$count"

            Output: each answer's body, after a line "answer N"; with --json one JSON line per \
            answer: the answer's JSON (a number for /$count), or {"error":{...}} for a read that \
            failed (an entity that is no longer there; the watch goes on).

            Ctrl-C (SIGINT) or SIGTERM stops it cleanly (the store is closed) with exit code 0.
            Exit codes: 0 stopped by a signal or after --limit answers; 1 STORE does not exist or \
            the URL is not a local read of it; 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Argument(help: "The read URL, relative to the service root.")
    var url: String

    @Flag(help: "Print one JSON line per answer instead of text.")
    var json = false

    @Option(help: "The least time between two runs of the read, in seconds.")
    var interval: Double = ODataStore.defaultLiveQueryInterval

    @Option(help: "Stop after this many answers (for scripts); without it, until a signal.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if !(interval >= 0) || !interval.isFinite { throw ValidationError("--interval must be a number of seconds, 0 or more") }
    }

    func run() throws {
        do throws(ODataError) {
            let store = try openStore(path: path, mode: .offline)
            defer { store.close() }
            guard let pipe = Interruption.signalPipe() else { throw ODataError(.storage, "cannot make a pipe to wait for signals") }
            let printer = AnswerPrinter(json: json, limit: limit, wakePipe: pipe.write)
            let query = try store.watch(url, interval: interval) { answer in printer.print(answer) }
            let signal = Interruption.waitForSignal(on: pipe.read)
            query.cancel()
            if let signal, !json {
                var standardError = StandardErrorStream()
                Swift.print("stopped by \(Interruption.name(of: signal)) after \(printer.printedCount) answers", to: &standardError)
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}

/// Prints a watch's answers as they come (on the store's live-query thread), flushing each, and
/// wakes the command once `limit` answers are out.
private final class AnswerPrinter: @unchecked Sendable {
    let json: Bool
    let limit: Int?
    let wakePipe: Int32
    private var printed = 0
    private var mutex = pthread_mutex_t()

    init(json: Bool, limit: Int?, wakePipe: Int32) {
        self.json = json
        self.limit = limit
        self.wakePipe = wakePipe
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    var printedCount: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return printed
    }

    func print(_ answer: Result<StoreResponse, ODataError>) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if let limit, printed >= limit { return }
        printed += 1
        switch answer {
        case .success(let response):
            if json {
                let text = response.text
                Swift.print(response.contentType.hasPrefix("application/json") ? text : Self.jsonString(text))
            } else {
                Swift.print("answer \(printed)")
                Swift.print(terminalSafe(response.text))
            }
        case .failure(let error):
            if json { printJSONError(error) } else { Swift.print("answer \(printed): error: \(terminalSafe("\(error)"))") }
        }
        fflush(nil)  // every stream: standard output reaches a pipe at each answer
        if let limit, printed >= limit { Interruption.wake(wakePipe) }
    }

    /// `text` as a JSON string (a `/$count` answer is a number, which is JSON as it is).
    private static func jsonString(_ text: String) -> String {
        if Int64(text) != nil { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
