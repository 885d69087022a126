import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata store config STORE [--conflicts POLICY [--entity-set SET]] [--alternate-key SET=P,P] [--json]`.
struct StoreConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or set what the store keeps for its uploads: its conflict policies and alternate keys.",
        discussion: """
            Without --conflicts, shows the store's conflict policies. --conflicts sets the store's \
            default, or with --entity-set that set's: every later upload of the store follows it \
            (an upload's own --conflicts goes over it for that upload). Policies: archive (the \
            default: the request goes to the error archive with the service's entity beside it), \
            server-wins (the local change is dropped and recorded, the store takes the service's \
            entity), client-wins (the change is sent again on the service's version), merge (the \
            changed fields are sent again when the service changed none of them; archived \
            otherwise). What each does with deletes: docs/CONFLICTS.md.

            --alternate-key SET=P[,P...] declares properties unique per entity in SET: a create             whose key the service assigns and whose answer was lost is then read back by them             (found with the values sent: not sent again; not found: sent again) instead of waiting             in the error archive for a decision. SET= alone forgets the declaration. Keys the             model declares (Core.AlternateKeys) count too.

            Examples:
              offline-odata store config travel.store
              offline-odata store config travel.store --conflicts server-wins
              offline-odata store config travel.store --conflicts merge --entity-set TravelagencyCollection
              offline-odata store config travel.store --alternate-key TravelagencyCollection=name

            Output: 'conflicts: DEFAULT' and a line per set that differs; with --json \
            {"conflicts": {"default", "entitySets": {SET: POLICY}}, "alternateKeys": {SET: [[P, ...]]}};             a line 'alternate key SET: P, P' per key.

            Exit codes: 0 success; 1 an error (an unknown set; the message says which); 64 a usage error.
            """
    )

    @Argument(help: "The path of the store file.")
    var path: String

    @Option(help: "Set a conflict policy: archive, server-wins, client-wins or merge.")
    var conflicts: String?

    @Option(help: "With --conflicts: the entity set it is for (the store's default without it).")
    var entitySet: String?

    @Option(help: "Declare an alternate key: SET=PROPERTY[,PROPERTY...] (SET= forgets it).")
    var alternateKey: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if let conflicts, ConflictPolicy(named: conflicts) == nil {
            throw ValidationError("unknown conflict policy '\(conflicts)': archive, server-wins, client-wins or merge")
        }
        if entitySet != nil && conflicts == nil { throw ValidationError("--entity-set goes with --conflicts") }
        if let alternateKey, !alternateKey.contains("=") {
            throw ValidationError("--alternate-key takes SET=PROPERTY[,PROPERTY...]")
        }
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
            let alternateKeys: [String: [[String]]]
            if let alternateKey, let equals = alternateKey.firstIndex(of: "=") {
                let properties = alternateKey[alternateKey.index(after: equals)...].split(separator: ",").map(String.init)
                alternateKeys = try store.performAndWait(.setAlternateKey(properties, entitySet: String(alternateKey[..<equals])))
            } else {
                alternateKeys = try store.performAndWait(.alternateKeys)
            }
            if json {
                var writer = JSONWriter()
                writer.beginObject()
                writer.writeKey("conflicts"); writer.writeValue(policies.json)
                writer.writeKey("alternateKeys")
                writer.beginObject()
                for set in alternateKeys.keys.sorted() {
                    writer.writeKey(set)
                    writer.beginArray()
                    for key in alternateKeys[set] ?? [] {
                        writer.beginArray()
                        for property in key { writer.writeString(property) }
                        writer.endArray()
                    }
                    writer.endArray()
                }
                writer.endObject()
                writer.endObject()
                print(String(decoding: writer.bytes, as: UTF8.self))
            } else {
                print("conflicts: \(policies.storeDefault.rawValue)")
                for name in policies.perEntitySet.keys.sorted() {
                    print("  \(name): \(policies.perEntitySet[name]?.rawValue ?? "")")
                }
                for set in alternateKeys.keys.sorted() {
                    for key in alternateKeys[set] ?? [] { print("alternate key \(set): \(key.joined(separator: ", "))") }
                }
            }
        } catch {
            exitWithError(error, json: json)
        }
    }
}
