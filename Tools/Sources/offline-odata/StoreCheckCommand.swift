import ArgumentParser
@_spi(Tool) import OfflineOData

extension StoreCommand {
    /// `offline-odata store check STORE [--quick] [--json]`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a store file: SQLite's integrity check and the engine's own invariants.",
            discussion: """
                Read-only. Runs SQLite's integrity check (its quick check with --quick), then the \
                engine's checks: every entity with local changes has its queued or archived request \
                and every queued request its entity; what the defining requests hold, the navigation \
                links and the saved original values point to entities that are there.

                Examples:
                  offline-odata store check travel.store
                  offline-odata store check travel.store --quick --json

                Output: "sound", or one finding a line ("queue: ..."); with --json one object \
                {"sound": true|false, "findings": [{"check", "message"}]}, or {"error": {"code", \
                "status", "message"}} when the store cannot be checked. The store is closed before \
                the command exits, whatever it found.

                Exit codes: 0 the store is sound; 3 the check found something (listed); 1 an error \
                (STORE does not exist or is not a store); 64 a usage error.
                """
        )

        /// The exit code of a store with findings (as `upload` exits 3 when requests were archived).
        static let findingsExitCode: Int32 = 3

        @Argument(help: "The path of the store file.")
        var path: String

        @Flag(help: "SQLite's quick check instead of its full integrity check (faster on large stores).")
        var quick = false

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let findings: [StoreFinding]
            do throws(ODataError) {
                guard fileExists(path) else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
                let file = try StoreFile(path: path, acceptsEmptyFile: false, key: ToolKey.current)
                defer { file.close() }
                findings = try file.check(quick: quick)
            } catch {
                exitWithError(error, json: json)
            }
            if json {
                print("{\"sound\":\(findings.isEmpty),\"findings\":" + StoreFinding.jsonText(findings) + "}")
            } else if findings.isEmpty {
                print("\(path): sound")
            } else {
                for finding in findings { print("\(finding.check): \(terminalSafe(finding.message))") }
            }
            if !findings.isEmpty { OfflineODataTool.exit(withError: ExitCode(Self.findingsExitCode)) }
        }
    }
}
