import ArgumentParser
@_spi(Tool) import OfflineOData

extension QueueCommand {
    /// `offline-odata queue compact STORE [--json]`.
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compact the request queue now, as each upload does first.",
            discussion: """
                Fewer requests, the same result on the service: a create followed by updates of its \
                entity becomes one create with the final values; consecutive updates (PATCH, MERGE) \
                of one entity merge, later values winning property by property; updates followed by \
                a delete become the delete; a create followed by a delete disappears with everything \
                between (the entity leaves the store). Never across a transaction boundary, a request \
                that names the entity (its key values, a link), a change queued with 'request \
                --no-merge', a request already sent, differing ETags, or bodies with links or nested \
                values. Done in one SQLite transaction: a killed process leaves the queue as it was \
                or compacted, never half.

                Examples:
                  offline-odata queue compact travel.store
                  offline-odata queue compact travel.store --json

                Output: 'compacted: N requests dropped, M queued'; with --json {"queued","dropped", \
                "replaced":[{"id","replaces"}],"cancelled":[{"entitySet","entityID"}]}.

                Exit codes: 0 success; 1 an error (STORE does not exist, is read-only, or an upload \
                of it runs); 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Flag(help: "Print what was done as one JSON object.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path)
                defer { store.close() }
                let compaction = try store.performAndWait(.compactQueue)
                if json {
                    print(compaction.jsonText)
                } else {
                    print("compacted: \(compaction.dropped.count) requests dropped, \(compaction.queue.count) queued")
                }
            } catch {
                exitWithError(error, json: json)
            }
        }
    }
}
