import ArgumentParser
import OfflineOData

/// `offline-odata request STORE [--method M] URL [--body JSON]`: one OData request on the store.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Run one OData request against the offline store and print the answer.",
        discussion: """
            Reads (GET) are answered from the store; creates, updates and deletes (POST, PUT,
            PATCH, MERGE, DELETE) change the store and are queued for upload. URLs are relative to
            the service root and in the store's dialect.

            Examples:
              offline-odata request travel.store "TravelagencyCollection?\\$filter=city eq 'Rome'"
              offline-odata request travel.store --method POST TravelagencyCollection \\
                  --body '{"agencynum":"00000099","name":"Fly & Co"}'

            Exit codes: 0 success; 1 the request failed (the message says why); 64 a usage error.
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

    func run() throws {
        do throws(ODataError) {
            let store = try OfflineStore.open(path: path)
            defer { store.close() }
            let response = try store.execute(method: method, url: url, body: body.map { Array($0.utf8) }, transactionID: transactionID)
            if !response.body.isEmpty { print(String(decoding: response.body, as: UTF8.self)) }
            if response.body.isEmpty { print("\(response.status)") }
        } catch {
            exitWithError(error)
        }
    }
}
