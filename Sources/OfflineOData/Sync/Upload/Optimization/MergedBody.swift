/// The JSON bodies the queue's compaction can join, and their join.
///
/// Only a flat object of property values takes part: a nested object or array may be a deep
/// insert or a complex value whose merge OData leaves to the service, and an annotation
/// (`...@odata.bind`, `__metadata`) may link other entities, so such a body is sent as it is.
enum MergedBody {
    /// Whether `body` is a JSON object whose members are distinct property names with null,
    /// boolean, number or string values.
    static func isFlatObject(_ body: String) -> Bool {
        guard let members = try? JSONValue.parse(Array(body.utf8)).objectMembers else { return false }
        var names: Set<String> = []
        for member in members {
            guard !member.key.utf8.contains(UInt8(ascii: "@")), member.key != "__metadata",
                  names.insert(member.key).inserted else { return false }
            switch member.value {
            case .object, .array: return false
            case .null, .bool, .number, .string: continue
            }
        }
        return true
    }

    /// Whether a member of the JSON object `body` is null.
    static func hasNull(_ body: String) -> Bool {
        (try? JSONValue.parse(Array(body.utf8)).objectMembers)?.contains { $0.value.isNull } ?? false
    }

    /// The first body with each later body's members written over it, property by property (a
    /// member the first lacks is added at the end); nil when a body is missing or not an object.
    ///
    /// `keepingFirst`: members only the first body may set. A create's key is the create's own:
    /// an update may name the entity's provisional key, which the service must never receive.
    static func merge(_ bodies: [String?], keepingFirst: [String] = []) -> String? {
        var members: [JSONMember] = []
        var positions: [String: Int] = [:]
        for (index, body) in bodies.enumerated() {
            guard let body, let later = try? JSONValue.parse(Array(body.utf8)).objectMembers else { return nil }
            for member in later where index == 0 || !keepingFirst.contains(member.key) {
                if let position = positions[member.key] {
                    members[position] = member
                } else {
                    positions[member.key] = members.count
                    members.append(member)
                }
            }
        }
        return String(decoding: JSONValue.object(members).serialized(), as: UTF8.self)
    }
}
