import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata explain STORE URL [--json]`.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the SQL a read runs and whether a defining request covers it.",
        discussion: """
            A read inside a defining request's scope returns everything the service would; a read \
            outside every scope returns only what other defining requests happened to bring. \
            Read-only: nothing runs and the service is not contacted.

            Examples:
              offline-odata explain travel.store \\
                  "TravelagencyCollection?\\$filter=country eq 'US' and city eq 'Boston'"
              offline-odata explain travel.store --json \\
                  "TravelagencyCollection?\\$filter=city eq 'Beijing'"

            Output: the SQL, its parameters, the count query if any, SQLite's plan (a "plan:" line \
            per step: the index the read searches, or a scan) and the scope; with --json one \
            object: {"sql", "parameters": [...], "countSQL", "insideScope", "definingRequests": [...], "plan": [...]}.

            Exit codes: 0 success; 1 STORE does not exist or the read is not valid for the store \
            (the message says why); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Argument(help: "The read URL, relative to the service root.")
    var url: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do throws(ODataError) {
            let store = try openStore(path: path)
            defer { store.close() }
            let explanation = try store.performAndWait(.explain(url: url))
            if json {
                print(explanation.jsonText)
                return
            }
            print("SQL: \(explanation.sql)")
            if !explanation.parameters.isEmpty {
                print("parameters: " + explanation.parameters.enumerated().map { "?\($0.offset + 1)=\($0.element)" }.joined(separator: ", "))
            }
            if let count = explanation.countSQL { print("count: \(count)") }
            for step in explanation.plan { print("plan: \(step)") }
            if explanation.isInsideScope {
                print("scope: inside the defining request\(explanation.insideDefiningRequests.count == 1 ? "" : "s") "
                      + explanation.insideDefiningRequests.joined(separator: ", "))
            } else {
                print("scope: outside every defining request: the store may lack entities the service has")
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}
