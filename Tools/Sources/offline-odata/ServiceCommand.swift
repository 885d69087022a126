import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata service ...`: the service's model against the store's (issue 34).
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Check whether the service's $metadata changed, and adopt a changed model.",
        discussion: """
            Every download checks too: a compatible change (new sets, nullable properties, \
            navigations, wider facets) is migrated in place; any other stops the download until \
            'service adopt' says how.

            Examples:
              offline-odata service check travel.store --json
              offline-odata service adopt travel.store --choice archiveRefused

            Exit codes: 0 success (check: whatever it found); 1 an error; 64 a usage error.
            """,
        subcommands: [Check.self, Adopt.self]
    )

    /// Opens the store file with the service options, not downloading.
    static func open(_ path: String, _ service: ServiceOptions) throws(ODataError) -> ODataStore {
        var options = ODataStore.Options(path: path, serviceRoot: service.serviceRoot)
        options.creation = .openExisting
        options.downloadsOnFirstOpen = false
        options.http = try service.httpOptions()
        options.savesServiceRoot = service.saveService
        return try openStore(options)
    }

    /// `offline-odata service check STORE [--json]`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the service whether its $metadata changed, and list the differences.",
            discussion: """
                One conditional request where the service gives an ETag or a date, else the \
                document and its hash. Each difference is compatible, needsData or \
                breaksPendingChanges (queued requests the new model refuses, listed by id).

                Output: 'unchanged (how)' or one line per difference; with --json {"changed", \
                "evidence","impact","migrated","refusedRequests","differences":[{"kind", \
                "entitySet","type","member","old","new","impact","queuedRequests"}]}.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @OptionGroup var service: ServiceOptions

        @Flag(help: "Print the check as one JSON object.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try ServiceCommand.open(path, service)
                defer { store.close() }
                let check = try store.performAndWait(.checkService)
                if json {
                    print(check.jsonText)
                } else if !check.changed {
                    print("unchanged (\(check.evidence.rawValue))")
                } else {
                    for difference in check.differences { print(difference.description) }
                    print("\(check.differences.count) differences, impact \(check.impact?.rawValue ?? "none"); "
                          + "\(check.refusedRequests.count) queued requests refused by the new model")
                }
            } catch {
                exitWithError(error)
            }
        }
    }

    /// `offline-odata service adopt STORE [--choice uploadFirst|rebuild|archiveRefused] [--json]`.
    struct Adopt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adopt the service's changed model, then download in full.",
            discussion: """
                --choice uploadFirst (the default): upload the queue under the store's model first; \
                rebuild: adopt now, keeping the queue and the error archive; archiveRefused: move the \
                queued requests the new model refuses to the error archive (kind modelChanged), then \
                adopt. The tables and the kept model change in one transaction. --batch and \
                --batch-size: how uploadFirst uploads, as for 'offline-odata upload'.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Option(help: "uploadFirst, rebuild or archiveRefused.")
        var choice = "uploadFirst"

        @Flag(help: "With uploadFirst: send the queue in $batch requests.")
        var batch = false

        @Option(help: "With --batch: at most this many queued requests per $batch.")
        var batchSize = 100

        @OptionGroup var service: ServiceOptions

        @Flag(help: "Print the outcome as one JSON object.")
        var json = false

        func run() throws {
            guard let chosen = ServiceModelChoice(rawValue: choice) else {
                throw ValidationError("--choice must be uploadFirst, rebuild or archiveRefused")
            }
            do throws(ODataError) {
                let store = try ServiceCommand.open(path, service)
                defer { store.close() }
                let adoption = try store.performAndWait(.adoptServiceModel(chosen, upload: UploadOptions(batch: batch, batchSize: batchSize)))
                if json {
                    print(adoption.jsonText)
                } else {
                    print(adoption.adopted ? "adopted the service's model (\(adoption.archived) requests archived)" : "unchanged")
                }
            } catch {
                exitWithError(error)
            }
        }
    }
}
