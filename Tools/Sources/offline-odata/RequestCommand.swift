import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata request STORE [--method M] URL [--body JSON] [--mode offline|online|mixed] [--one-page]`:
/// one OData request on the store, the service, or whichever the router picks. All pages are the
/// default, because a reader of the output expects the answer to the URL it gave; `--one-page`
/// is for scripts that page themselves.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Run one OData request against the offline store (or the service) and print the answer.",
        discussion: """
            With --mode offline (the default), reads (GET) are answered from the store; creates, \
            updates and deletes (POST, PUT, PATCH, MERGE, DELETE) change the store and are queued \
            for upload. URLs are relative to the service root and in the store's dialect.

            With --mode online the request goes to the service (the store's service root, or \
            --service). With --mode mixed it goes where 'offline-odata route' says: offline when \
            a defining request covers its entity set, online for function and action imports and \
            for sets no defining request covers; the choice and its reason are printed on standard \
            error as 'route: offline|online (reason)'. Nothing is downloaded first. As with \
            download and upload, --service applies to this command; --save-service also keeps it in the store.

            Examples:
              offline-odata request travel.store \\
                  "TravelagencyCollection?\\$filter=city eq 'Rome'"
              offline-odata request travel.store --method POST TravelagencyCollection \\
                  --body '{"agencynum":"00000099","name":"Fly & Co"}'
              offline-odata request travel.store --mode mixed \\
                  "GetAgencyDetails(agencynum='00000001')"

            A read the service answers comes whole: the service's next links (V4 @odata.nextLink, \
            V2 __next) are followed, on the service's origin only, and the entities of every page \
            printed as one collection, at most $top of them, with the first page's count; \
            --max-pages and --max-response-size bound the pages and their bytes together (more \
            is an error, never a cut). With --one-page only the service's page is printed, as it \
            came, its next link in it; to go on, request that link (an absolute URL of the \
            service) with --one-page again. Offline reads are always whole.

            The body of the answer is printed; when it has none, its HTTP status. With --json one \
            object instead, for scripts: {"status", "contentType", "route": {"destination", \
            "reason"} or null (only --mode mixed routes), "nextLink" (with --one-page, the link to \
            the next page, else null), "body"}, where "body" is the answer's JSON, its text when it \
            is not JSON (a $count), or null when there is none ("contentType" is null then too).

            The service options (--service, --user, --token, --insecure, --timeout) need --mode \
            online or mixed; the password of --user comes from OFFLINE_ODATA_PASSWORD or a prompt.

            Exit codes: 0 success; 1 the request failed (the message says why: the store, the \
            service's answer, or the network); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "The HTTP method: GET (default), POST, PUT, PATCH, MERGE or DELETE.")
    var method = "GET"

    @Argument(help: "The request URL, relative to the service root.")
    var url: String

    @Option(help: "The JSON body of a create or update.")
    var body: String?

    @Option(help: "Queue the change with this transaction id ('upload --batch --group-by-transaction' sends one change set per id).")
    var transactionID: String?

    @Flag(help: "Queue the change to be sent as it is: the queue's compaction never merges it with others nor drops it.")
    var noMerge = false

    @Option(help: "Where the request goes: offline (the store, the default), online (the service) or mixed (the router decides).")
    var mode: ToolMode = .offline

    @OptionGroup var service: ServiceOptions

    @Flag(help: "Read one page of a collection the service answers, with its next link, instead of the whole collection.")
    var onePage = false

    @Flag(help: "Print the status, content type, route, next link and body as one JSON object.")
    var json = false

    func validate() throws {
        if mode == .offline, service.serviceRoot != nil || service.saveService || service.user != nil || service.token != nil || service.insecure
            || service.timeout != nil {
            throw ValidationError("the service options (--service, --user, --token, --insecure, --timeout) need --mode online or mixed")
        }
        if onePage, method.uppercased() != "GET" {
            throw ValidationError("--one-page reads one page of a collection: it needs --method GET, not \(method)")
        }
    }

    func run() throws {
        do throws(ODataError) {
            let bodyBytes = body.map { Array($0.utf8) }
            let response: StoreResponse
            var route: Route?
            // Offline, the service options are refused (see validate()): nothing asks the service.
            let store = try openStore(path: path, mode: mode.workingMode, service: mode == .offline ? nil : service)
            defer { store.close() }
            if mode == .mixed {
                let decision = try store.performAndWait(.route(method: method, url: url))
                var standardError = StandardErrorStream()
                print("route: \(decision.destination.rawValue) (\(decision.reason))", to: &standardError)
                route = decision
            }
            response = try store.executeAndWait(ODataRequest(method: method, url: url, body: bodyBytes,
                                                             transactionID: transactionID, followsNextLinks: !onePage,
                                                             mergeable: !noMerge))
            if json {
                printJSON { writeResponse(response, route: route, to: &$0) }
            } else if response.body.isEmpty {
                print("\(response.status)")
            } else {
                print(String(decoding: response.body, as: UTF8.self))
            }
        } catch {
            exitWithError(error, json: json)
        }
    }

    /// The `--json` form of an answer. A body that is not JSON (a `$count`, a media value) is kept
    /// as a string, so the output is JSON whatever the service sent.
    private func writeResponse(_ response: StoreResponse, route: Route?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("status"); writer.writeNumber(response.status)
        writer.writeKey("contentType")
        if response.contentType.isEmpty { writer.writeNull() } else { writer.writeString(response.contentType) }
        writer.writeKey("route")
        if let route {
            writer.beginObject()
            writer.writeKey("destination"); writer.writeString(route.destination.rawValue)
            writer.writeKey("reason"); writer.writeString(route.reason)
            writer.endObject()
        } else {
            writer.writeNull()
        }
        writer.writeKey("nextLink")
        if let link = response.nextLink { writer.writeString(link) } else { writer.writeNull() }
        writer.writeKey("body")
        if response.body.isEmpty {
            writer.writeNull()
        } else if let value = try? JSONValue.parse(response.body) {
            writer.writeValue(value)
        } else {
            writer.writeString(String(decoding: response.body, as: UTF8.self))
        }
        writer.endObject()
    }
}
