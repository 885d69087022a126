/// A JSON value held in memory: one entity, an error body, a small document.
///
/// Numbers keep their exact text (``JSONNumber``). Objects keep their members in document order,
/// duplicates included, so that reading and writing a document changes nothing.
///
/// Duplicate keys: RFC 8259 leaves them to the implementation. ``JSONValue`` keeps every member,
/// and lookup by key (``subscript(_:)-(String)``) returns the **last** member of that name, as
/// JavaScript's `JSON.parse` and Python's `json` do. Readers that must refuse such documents (Olingo
/// does) parse with ``JSONReader/Options/rejectsDuplicateKeys``.
///
/// ```swift
/// let page = try JSONValue.parse(bytes)
/// let first = page["d"]?["results"]?[0]
/// let id = first?["ID"]?.int64Value
/// ```
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of the last member named `key`, or nil when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at `index`, or nil when this is not an array or the index is out of bounds.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// True for `null` (OData's way of saying a property has no value).
    public var isNull: Bool { self == .null }

    /// The flag of a `true`/`false` value; nil for anything else.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The text of a string value; nil for anything else (numbers are not converted).
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// A number value's exact text; nil for anything else.
    public var numberValue: JSONNumber? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The exact integer of a number value; nil for non-numbers, fractions, exponents and overflow.
    /// (OData V2 sends `Edm.Int64` as a string; convert those with the EDM value codec.)
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The nearest double of a number value; nil for non-numbers.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The elements of an array value.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of an object value, in document order.
    public var objectMembers: [JSONMember]? {
        guard case .object(let members) = self else { return nil }
        return members
    }
}

/// One member of a JSON object.
public struct JSONMember: Equatable, Sendable {
    /// The member's name, unescaped.
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// Float literals go through `Double`; write exact decimals with ``JSONNumber/init(_:)-(String)``.
    public init(floatLiteral value: Double) { self = JSONNumber(value).map { .number($0) } ?? .null }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Members in the order written; repeated keys are kept.
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(members.map { JSONMember($0.0, $0.1) })
    }
}
