import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata parse --metadata FILE [--v2|--v4] URL [--json]`.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse and bind an OData URL against a $metadata document; print the bound query as JSON.",
        discussion: """
            The URL is relative to the service root. Errors give the character offset of the fault. \
            Nothing is fetched over the network and no store is needed.

            Examples:
              offline-odata parse --metadata metadata.xml \\
                  "TravelagencyCollection?\\$filter=creditlimit gt 1000&\\$top=5"
              offline-odata parse --json \\
                  --metadata metadata-v2.xml \\
                  "FlightCollection?\\$filter=fldate gt datetime'2013-09-16T00:00'"

            Output: the bound query is a tree, so it is printed as JSON with or without --json \
            (the flag is accepted like every read-only subcommand's): always "target" \
            (collection, entity, count, property, operation, ...), then as the URL has them \
            "entitySet", "entityType", "rootSet", "key", "navigation", "filter", "orderby", "top", \
            "skip", "select", "expand".

            Exit codes: 0 the URL is valid for the model; 1 it is not (the message says why and where); \
            64 a usage error.
            """
    )

    @Option(help: "The service's $metadata document (a file).")
    var metadata: String

    @Flag(help: "Use the OData V2 URL syntax (the default is the document's version).")
    var v2 = false

    @Flag(help: "Use the OData V4 URL syntax (the default is the document's version).")
    var v4 = false

    @Argument(help: "The URL, relative to the service root.")
    var url: String

    @Flag(help: "Print JSON (the only form of a bound query: the flag is there so every read-only subcommand takes it).")
    var json = false

    func validate() throws {
        if v2 && v4 { throw ValidationError("--v2 and --v4 exclude each other") }
    }

    func run() throws {
        do throws(ODataError) {
            let model = try MetadataReader.read(try readWholeFile(metadata))
            let dialect: Dialect = v2 ? .v2 : v4 ? .v4 : (model.version.usesV4Protocol ? .v4 : .v2)
            let bound = try ODataBinder(model: model, dialect: dialect).bind(ODataURLParser(dialect: dialect).parse(url))
            print(String(decoding: bound.jsonDescription(), as: UTF8.self))
        } catch {
            exitWithError(error, json: json)
        }
    }
}
