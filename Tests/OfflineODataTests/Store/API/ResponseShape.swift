@_spi(Tool) @testable import OfflineOData

/// Compares two OData JSON answers by shape and values: what an application reading them sees.
///
/// Kept: the envelope's members (`value`, `@odata.count`; V2 `d`, `results`, `__count`), every
/// property and its value, expanded navigation, `__metadata.type`. Left out: annotations that
/// name where an answer came from or how fresh it is (`@odata.context`, `@odata.etag`,
/// `@odata.id`, `@odata.editLink`, `@odata.metadataEtag`, V2 `__metadata.uri`/`etag`, `__deferred`
/// links), which differ between a service and a store by nature. Numbers and numeric strings
/// compare by value (`1234.5` = `"1234.50"`): V2 sends decimals as strings, V4 as numbers.
enum ResponseShape {
    static func differences(_ offline: JSONValue, _ online: JSONValue, path: String = "$") -> [String] {
        switch (offline, online) {
        case (.object(let left), .object(let right)):
            let leftKeys = kept(left)
            let rightKeys = kept(right)
            var result: [String] = []
            if leftKeys.map(\.key).sorted() != rightKeys.map(\.key).sorted() {
                result.append("\(path): members \(leftKeys.map(\.key).sorted()) offline, \(rightKeys.map(\.key).sorted()) online")
            }
            for member in leftKeys {
                guard let other = rightKeys.last(where: { $0.key == member.key }) else { continue }
                result += differences(member.value, other.value, path: path + "." + member.key)
            }
            return result
        case (.array(let left), .array(let right)):
            guard left.count == right.count else { return ["\(path): \(left.count) elements offline, \(right.count) online"] }
            // Entities compare in key order when the answer has no defined order.
            let sortedLeft = left.sorted { canonical($0) < canonical($1) }
            let sortedRight = right.sorted { canonical($0) < canonical($1) }
            return zip(sortedLeft, sortedRight).enumerated().flatMap { index, pair in
                differences(pair.0, pair.1, path: "\(path)[\(index)]")
            }
        default:
            if let left = number(offline), let right = number(online) {
                return left == right ? [] : ["\(path): \(left) offline, \(right) online"]
            }
            return offline == online ? [] : ["\(path): \(offline.text ?? "?") offline, \(online.text ?? "?") online"]
        }
    }

    private static let dropped: Set<String> = ["@odata.context", "@odata.etag", "@odata.id", "@odata.editLink",
                                               "@odata.readLink", "@odata.metadataEtag", "uri", "etag", "id"]

    private static func kept(_ members: [JSONMember]) -> [JSONMember] {
        members.filter { member in
            if dropped.contains(member.key) { return false }
            if member.key.contains("@"), !member.key.hasSuffix("@odata.count"), member.key != "@odata.count" { return false }
            // A V2 navigation link that was not expanded.
            if case .object(let inner) = member.value, inner.count == 1, inner.first?.key == "__deferred" { return false }
            return true
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): number.doubleValue
        case .string(let text): text.isEmpty ? nil : Double(text)
        default: nil
        }
    }

    /// A text that orders entities by their content (keys first, as they come first in both).
    static func canonical(_ value: JSONValue) -> String {
        switch value {
        case .object(let members):
            kept(members).sorted { $0.key < $1.key }.map { "\($0.key)=\(canonical($0.value))" }.joined(separator: ",")
        case .array(let elements): "[" + elements.map(canonical).joined(separator: ";") + "]"
        default: number(value).map { String($0) } ?? value.text ?? ""
        }
    }
}
