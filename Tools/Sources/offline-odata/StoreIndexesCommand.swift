import ArgumentParser
@_spi(Tool) import OfflineOData

extension StoreCommand {
    /// `offline-odata store indexes STORE [--auto] [--json]`.
    struct Indexes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the indexes the store made beyond its keys; with --auto, first make the automatic ones due.",
            discussion: """
                The store counts the shapes of the local reads it answers (the properties a filter \
                tests for equality, then a range or the order). A shape read ten times that no index \
                serves gets an index: after a download, in the background once a shape reaches ten \
                reads in one session of the store API, and with --auto, which makes them now, without \
                a download (a store loaded, or used offline for days).

                Examples:
                  offline-odata store indexes travel.store
                  offline-odata store indexes travel.store --auto --json

                Output: one line per index ('ENTITYSET(PROPERTIES) ORIGIN: REASON'), with --auto first \
                'made: N automatic indexes'; with --json {"made":[...],"indexes":[...]}, each index \
                {"entitySet","properties","name","origin","reason","createdAt"}.

                Exit codes: 0 success; 1 an error (STORE does not exist, or is read-only with \
                --auto); 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Flag(help: "Make the automatic indexes the reads so far call for, now.")
        var auto = false

        @Flag(help: "Print the indexes as one JSON object.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path)
                defer { store.close() }
                let made = auto ? try store.performAndWait(.createAutomaticIndexes) : []
                let all = try store.performAndWait(.status).indexes
                if json {
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.writeKey("made"); StoreIndex.write(made, to: &writer)
                    writer.writeKey("indexes"); StoreIndex.write(all, to: &writer)
                    writer.endObject()
                    print(String(decoding: writer.bytes, as: UTF8.self))
                } else {
                    if auto { print("made: \(made.count) automatic indexes") }
                    for index in all {
                        print("\(index.entitySet)(\(index.properties.joined(separator: ","))) \(index.origin.rawValue): \(index.reason)")
                    }
                }
            } catch {
                exitWithError(error, json: json)
            }
        }
    }
}
