/// The conflict policies a store keeps in its file: a default and one per entity set that differs,
/// so every program opening the store (the app, the tool) resolves conflicts the same way.
public struct ConflictPolicies: Sendable, Equatable {
    /// The policy of entity sets not named in ``perEntitySet``.
    public var storeDefault: ConflictPolicy
    public var perEntitySet: [String: ConflictPolicy]

    public init(storeDefault: ConflictPolicy = .archive, perEntitySet: [String: ConflictPolicy] = [:]) {
        self.storeDefault = storeDefault
        self.perEntitySet = perEntitySet
    }

    /// The policy for a change of `entitySet`.
    public func policy(for entitySet: String?) -> ConflictPolicy {
        entitySet.flatMap { perEntitySet[$0] } ?? storeDefault
    }

    /// The `ood_store_info` key they are kept under, as `{"default": ..., "entitySets": {...}}`.
    static let infoKey = "conflict_policies"

    /// The policies the store file keeps (the default `archive` for none).
    static func load(from file: StoreFile) throws(ODataError) -> ConflictPolicies {
        let text = try file.withConnection { db throws(ODataError) in try StoreInfoTable.value(infoKey, in: db) }
        guard let text, let document = try? JSONValue.parse(text) else { return ConflictPolicies() }
        var policies = ConflictPolicies(storeDefault: document["default"]?.stringValue.flatMap(ConflictPolicy.init(named:)) ?? .archive)
        for member in document["entitySets"]?.objectMembers ?? [] {
            if let policy = member.value.stringValue.flatMap(ConflictPolicy.init(named:)) { policies.perEntitySet[member.key] = policy }
        }
        return policies
    }

    /// Keeps `policy` as the store's default (`entitySet` nil) or the set's, in one transaction.
    static func record(_ policy: ConflictPolicy, entitySet: String?, in file: StoreFile) throws(ODataError) -> ConflictPolicies {
        try file.requireWritable()
        return try file.withConnection { db throws(ODataError) -> ConflictPolicies in
            try db.transaction { () throws(ODataError) -> ConflictPolicies in
                var policies = ConflictPolicies()
                if let text = try StoreInfoTable.value(infoKey, in: db), let document = try? JSONValue.parse(text) {
                    policies.storeDefault = document["default"]?.stringValue.flatMap(ConflictPolicy.init(named:)) ?? .archive
                    for member in document["entitySets"]?.objectMembers ?? [] {
                        if let kept = member.value.stringValue.flatMap(ConflictPolicy.init(named:)) { policies.perEntitySet[member.key] = kept }
                    }
                }
                if let entitySet { policies.perEntitySet[entitySet] = policy } else { policies.storeDefault = policy }
                try StoreInfoTable.setValue(ConflictTable.jsonText(policies.json), for: infoKey, in: db)
                return policies
            }
        }
    }

    /// `{"default": "...", "entitySets": {"Set": "...", ...}}`, sets in name order.
    public var json: JSONValue {
        .object([JSONMember("default", .string(storeDefault.rawValue)),
                 JSONMember("entitySets", .object(perEntitySet.keys.sorted().compactMap { name in
                     perEntitySet[name].map { JSONMember(name, .string($0.rawValue)) }
                 }))])
    }
}
