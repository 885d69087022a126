import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// `offline-odata`: the engine from the command line. One file per subcommand.
@main
struct OfflineODataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-odata",
        abstract: "An offline OData store: download, query and change OData data locally.",
        discussion: """
            The examples use an OData service at http://127.0.0.1:8000/ and its $metadata \
            document saved as metadata.xml (curl -o metadata.xml 'http://127.0.0.1:8000/$metadata').

            Examples:
              offline-odata store create travel.store --metadata metadata.xml \\
                  --service http://127.0.0.1:8000/ \\
                  --defining "Agencies=TravelagencyCollection?\\$filter=country eq 'US'"
              offline-odata download travel.store
              offline-odata request travel.store \\
                  "TravelagencyCollection?\\$filter=city eq 'Boston'"
              offline-odata status travel.store --json

            Every subcommand has --help with examples. Read-only subcommands (metadata, parse, \
            explain, route, status, log, archive, store info) print tables or text for people and one \
            JSON object with --json for scripts; request --json wraps the answer the same way. \
            A command given --json prints exactly one JSON object on standard output also when it \
            fails: {"error":{"code","status","message"[,"httpStatus","offset","line","column"]}}.

            Service access (download, upload, request --mode online|mixed): --service URL, \
            --user NAME with the password from OFFLINE_ODATA_PASSWORD or a prompt on the terminal \
            (never a command-line argument), --token TOKEN or OFFLINE_ODATA_TOKEN. download and \
            upload draw a progress bar on a terminal, none when piped; --verbose shows each HTTP \
            request and answer on standard error, --trace their headers too (credentials masked). \
            The service root must be an http or https URL. Text from the service is printed with \
            its control characters escaped (\\e, \\r, \\u{9b}).

            Exit codes: 0 success; 1 the engine reported an error (the message says which); \
            3 upload archived requests, store check found something; 64 the command line was \
            wrong; 130 or 143 a download or upload stopped by SIGINT (Ctrl-C) or SIGTERM. Every \
            way out closes the store first.

            \(ToolKey.help)

            \(ToolStoreUser.help)
            """,
        version: OfflineODataVersion.string,
        subcommands: [StoreCommand.self, MetadataCommand.self, ParseCommand.self, RequestCommand.self, ExplainCommand.self, RouteCommand.self, DownloadCommand.self, UploadCommand.self, QueueCommand.self, StatusCommand.self, LogCommand.self, ArchiveCommand.self, ServiceCommand.self, WatchCommand.self, StreamCommand.self]
    )

    /// ArgumentParser's own `main`, with two things first and last: `--key-file`/`--passphrase-env`
    /// are taken out first (``ToolKey``), so every subcommand has them; and a command line it
    /// refuses (exit 64) with `--json` among the arguments also prints the one JSON error object
    /// on standard output, as every failure of a `--json` command does (``printJSONError(_:)``).
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do throws(ODataError) {
            ToolKey.current = try ToolKey.extract(from: &arguments)
            ToolStoreUser.current = try ToolStoreUser.extract(from: &arguments)
        } catch {
            if arguments.contains("--json") { printJSONError(error) }
            var standardError = StandardErrorStream()
            print("error: \(terminalSafe(error.message))", to: &standardError)
            Glibc.exit(64)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if arguments.contains("--json"), exitCode(for: error).rawValue == 64 {
                let usage = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "the command line is wrong"
                printJSONError(ODataError(.misuse, usage))
            }
            exit(withError: error)
        }
    }

    /// Without a subcommand: the usage on standard error, and exit 64 (EX_USAGE), as for any
    /// command line that says nothing to do.
    mutating func run() throws {
        var standardError = StandardErrorStream()
        print(Self.helpMessage(), to: &standardError)
        throw ExitCode(64)
    }
}

/// Prints an engine error the way every subcommand does, and exits with code 1. With `json` (the
/// command's `--json`) the error is also the one JSON object on standard output
/// (``printJSONError(_:)``), so a script always reads one object, whatever happened.
func exitWithError(_ error: ODataError, json: Bool = false) -> Never {
    if json { printJSONError(error) }
    var standardError = StandardErrorStream()
    print("error: \(terminalSafe("\(error)"))", to: &standardError)
    OfflineODataTool.exit(withError: ExitCode(1))
}

/// Prints a warning on standard error: something went wrong that did not fail the command.
func warn(_ message: String) {
    var standardError = StandardErrorStream()
    print("warning: \(terminalSafe(message))", to: &standardError)
}

/// Standard error, for `print(_:to:)`.
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { buffer in _ = Glibc.write(2, buffer.baseAddress, buffer.count) }
    }
}
