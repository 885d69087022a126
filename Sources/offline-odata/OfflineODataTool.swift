import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import OfflineOData

/// `offline-odata`: the engine from the command line. One file per subcommand.
@main
struct OfflineODataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-odata",
        abstract: "An offline OData store: download, query and change OData data locally.",
        discussion: """
            Exit codes: 0 success; 1 the engine reported an error (the message says which); \
            64 the command line was wrong.
            """,
        version: OfflineODataVersion.string,
        subcommands: [StoreCommand.self, MetadataCommand.self, ParseCommand.self, RequestCommand.self, ExplainCommand.self, RouteCommand.self, DownloadCommand.self, UploadCommand.self, StatusCommand.self, ArchiveCommand.self]
    )
}

/// Prints an engine error the way every subcommand does, and exits with code 1.
func exitWithError(_ error: ODataError) -> Never {
    var standardError = StandardErrorStream()
    print("error: \(error)", to: &standardError)
    OfflineODataTool.exit(withError: ExitCode(1))
}

/// Standard error, for `print(_:to:)`.
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { buffer in _ = Glibc.write(2, buffer.baseAddress, buffer.count) }
    }
}
