import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata route STORE URL [--method M] [--service URL] [--json]`.
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Say where a request would go in mixed mode, and why, without running it.",
        discussion: """
            A request goes offline when a defining request covers its entity set (reads and \
            writes alike, whatever the filter: see 'offline-odata explain' for whether a read lies \
            inside a defining request's scope); function imports, action imports and sets no \
            defining request covers go online. A store without a service root (and no --service) \
            sends everything offline. The service is not contacted. As with download and upload, \
            a --service different from the store's is recorded in the store.

            Examples:
              offline-odata route travel.store \\
                  "TravelagencyCollection?\\$filter=country eq 'US'"
              offline-odata route travel.store --json \\
                  "GetAgencyDetails(agencynum='00000001')"

            Output: the destination (offline or online), then the reason; with --json \
            {"destination": ..., "reason": ..., "coveringRequests": [...]}.

            Exit codes: 0 success; 1 STORE does not exist, is not a store or cannot be opened (the \
            message says why); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Argument(help: "The request URL, relative to the service root.")
    var url: String

    @Option(help: "The HTTP method: GET (default), POST, PUT, PATCH, MERGE or DELETE.")
    var method = "GET"

    @Option(name: .customLong("service"), help: "The service root URL (default: the one the store was created with).")
    var serviceRoot: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do throws(ODataError) {
            let store = try openStore(path: path, mode: .mixed, serviceRoot: serviceRoot)
            defer { store.close() }
            let route = try store.performAndWait(.route(method: method, url: url))
            if json {
                // The same JSON as C's ood_route_json and Python's route_details.
                print(route.jsonText)
                return
            }
            print("\(route.destination.rawValue)  \(route.reason)")
        } catch {
            exitWithError(error, json: json)
        }
    }
}
