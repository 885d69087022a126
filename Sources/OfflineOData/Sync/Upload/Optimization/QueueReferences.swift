/// Which queued requests may depend on an entity: what ``QueueCompaction`` must not join an
/// entity's requests across.
///
/// A request names an entity when its URL or its body holds one of the entity's key values (a
/// key predicate, a foreign key, a link's address): it may need the entity as it is at that
/// point, so the entity's requests before and after it stay apart. The match is by value and
/// errs on the safe side (an unrelated property with the same value also counts); a request with
/// no entity, or a body that does not read as JSON, counts as naming every entity.
struct QueueReferences {
    /// Value token (see ``tokens(ofURL:)``) → the queue positions of the requests naming it, ascending.
    private var positionsByToken: [String: [Int]] = [:]
    /// The positions of requests that may name anything.
    private var unknown: [Int] = []
    /// Each entity's key values as tokens: from its requests' key predicates and its create's body.
    private var identities: [QueueCompaction.Entity: Set<String>] = [:]

    init(_ queue: [QueuedRequest], keyProperties: [String: [String]]) {
        for (position, request) in queue.enumerated() {
            var tokens = Self.tokens(ofURL: request.url)
            var readable = true
            if let body = request.body {
                if let document = try? JSONValue.parse(Array(body.utf8)) { Self.addTokens(of: document, to: &tokens) } else { readable = false }
            }
            guard let set = request.entitySet, let id = request.entityID, readable else {
                unknown.append(position)
                continue
            }
            for token in tokens { positionsByToken[token, default: []].append(position) }
            let entity = QueueCompaction.Entity(entitySet: set, entityID: id)
            var identity = identities[entity] ?? []
            if request.method == .post {
                if let body = request.body, let document = try? JSONValue.parse(Array(body.utf8)) {
                    for name in keyProperties[set] ?? [] {
                        if let value = document[name] ?? document["d"]?[name] { Self.addTokens(of: value, to: &identity) }
                    }
                }
            } else {
                identity.formUnion(Self.tokens(ofURL: request.url))
            }
            identities[entity] = identity
        }
    }

    /// Whether a request strictly between `earlier` and `later` (other than the entity's own) may
    /// depend on `entity`.
    func isNamed(_ entity: QueueCompaction.Entity, between earlier: Int, and later: Int) -> Bool {
        if Self.hasPosition(in: unknown, after: earlier, before: later) { return true }
        for token in identities[entity] ?? [] {
            if let positions = positionsByToken[token], Self.hasPosition(in: positions, after: earlier, before: later) { return true }
        }
        return false
    }

    /// Whether the ascending `positions` hold one strictly between `low` and `high`.
    private static func hasPosition(in positions: [Int], after low: Int, before high: Int) -> Bool {
        var (start, end) = (0, positions.count)
        while start < end {
            let middle = (start + end) / 2
            if positions[middle] <= low { start = middle + 1 } else { end = middle }
        }
        return start < positions.count && positions[start] < high
    }

    /// The key values in the key predicates of a URL's path (`Set('A')`, `Set(k1=1,k2='b')`,
    /// V2's `guid'...'`): `s:` and the text for strings, `n:` and the text for numbers (and `s:`
    /// too, as V2 writes large numbers as strings).
    static func tokens(ofURL url: String) -> Set<String> {
        var tokens: Set<String> = []
        let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        var depth = 0, inQuote = false
        var literal = ""
        for character in path {
            if inQuote {
                literal.append(character)
                if character == "'" { inQuote = false }
                continue
            }
            switch character {
            case "(":
                depth += 1
                literal = ""
            case ")", ",":
                if depth > 0 { addLiteral(literal, to: &tokens) }
                if character == ")" { depth = max(depth - 1, 0) }
                literal = ""
            case "=" where depth > 0:
                literal = ""   // `name=` of a named key part
            case "'":
                inQuote = true
                literal.append(character)
            default:
                if depth > 0 { literal.append(character) }
            }
        }
        return tokens
    }

    /// One literal of a key predicate: `'text'` (quotes doubled inside), `prefix'text'`, or bare.
    private static func addLiteral(_ literal: String, to tokens: inout Set<String>) {
        let trimmed = literal.trimmingSpaces()
        guard !trimmed.isEmpty else { return }
        if let open = trimmed.firstIndex(of: "'"), trimmed.last == "'", trimmed.index(after: open) < trimmed.endIndex {
            let inner = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            addString(replacingDoubledQuotes(String(inner)), to: &tokens)
        } else {
            addString(trimmed, to: &tokens)
        }
    }

    private static func replacingDoubledQuotes(_ text: String) -> String {
        var result = ""
        var previousWasQuote = false
        for character in text {
            if character == "'" && previousWasQuote { previousWasQuote = false; continue }
            previousWasQuote = character == "'"
            result.append(character)
        }
        return result
    }

    /// A string value: itself, as a number when it reads as one, and the key values of an
    /// address it may be (a link's `Set('A')`).
    private static func addString(_ text: String, to tokens: inout Set<String>) {
        tokens.insert("s:" + text)
        if looksNumeric(text) { tokens.insert("n:" + text) }
        if text.hasSuffix(")") && text.contains("(") { tokens.formUnion(Self.tokens(ofURL: text)) }
    }

    /// The values anywhere in a JSON document, as tokens.
    private static func addTokens(of value: JSONValue, to tokens: inout Set<String>) {
        switch value {
        case .string(let text): addString(text, to: &tokens)
        case .number(let number):
            tokens.insert("n:" + number.text)
            tokens.insert("s:" + number.text)
        case .array(let elements): for element in elements { addTokens(of: element, to: &tokens) }
        case .object(let members): for member in members { addTokens(of: member.value, to: &tokens) }
        case .null, .bool: break
        }
    }

    private static func looksNumeric(_ text: String) -> Bool { JSONNumber(text) != nil }
}
