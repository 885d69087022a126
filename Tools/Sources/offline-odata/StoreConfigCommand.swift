import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata store config STORE [--conflicts POLICY [--entity-set SET]] [--json]`.
struct StoreConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or set what the store keeps for its uploads: its conflict policies.",
        discussion: """
            Without --conflicts, shows the store's conflict policies. --conflicts sets the store's \
            default, or with --entity-set that set's: every later upload of the store follows it \
            (an upload's own --conflicts goes over it for that upload). Policies: archive (the \
            default: the request goes to the error archive with the service's entity beside it), \
            server-wins (the local change is dropped and recorded, the store takes the service's \
            entity), client-wins (the change is sent again on the service's version), merge (the \
            changed fields are sent again when the service changed none of them; archived \
            otherwise). What each does with deletes: docs/CONFLICTS.md.

            Examples:
              offline-odata store config travel.store
              offline-odata store config travel.store --conflicts server-wins
              offline-odata store config travel.store --conflicts merge --entity-set TravelagencyCollection

            Output: 'conflicts: DEFAULT' and a line per set that differs; with --json \
            {"conflicts": {"default", "entitySets": {SET: POLICY}}}.

            Exit codes: 0 success; 1 an error (an unknown set; the message says which); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Set a conflict policy: archive, server-wins, client-wins or merge.")
    var conflicts: String?

    @Option(help: "With --conflicts: the entity set it is for (the store's default without it).")
    var entitySet: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if let conflicts, ConflictPolicy(named: conflicts) == nil {
            throw ValidationError("unknown conflict policy '\(conflicts)': archive, server-wins, client-wins or merge")
        }
        if entitySet != nil && conflicts == nil { throw ValidationError("--entity-set goes with --conflicts") }
    }

    func run() throws {
        do throws(ODataError) {
            let store = try openStore(path: path)
            defer { store.close() }
            let policies: ConflictPolicies
            if let conflicts, let policy = ConflictPolicy(named: conflicts) {
                policies = try store.performAndWait(.setConflictPolicy(policy, entitySet: entitySet))
            } else {
                policies = try store.performAndWait(.conflictPolicies)
            }
            if json {
                var writer = JSONWriter()
                writer.beginObject()
                writer.writeKey("conflicts"); writer.writeValue(policies.json)
                writer.endObject()
                print(String(decoding: writer.bytes, as: UTF8.self))
            } else {
                print("conflicts: \(policies.storeDefault.rawValue)")
                for name in policies.perEntitySet.keys.sorted() {
                    print("  \(name): \(policies.perEntitySet[name]?.rawValue ?? "")")
                }
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}
