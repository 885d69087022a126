import FoundationEssentials
import OfflineOData

/// Decodes OData JSON values into the caller's `Decodable` types, reading each EDM value in the
/// forms V2 and V4 services send, as the caller's type asks for it:
///
/// | Swift type | accepted JSON |
/// |---|---|
/// | `Decimal` | a number (exactly, from its text) or a string (`"12.50"`: V2, V4 with `IEEE754Compatible`) |
/// | `Int`, `Int64`, ... | a number, or a string (V2's `Edm.Int64`) |
/// | `Double`, `Float` | a number, or a string (`"1.5"`, `"INF"`, `"-INF"`, `"NaN"`) |
/// | `Date` | V2 `/Date(ms)/`, ISO 8601 date and time, or a date (see ``DateDecodingStrategy``) |
/// | `UUID` | a `Guid` string |
/// | `Data` | base64 or base64url text (`Edm.Binary`) |
///
/// Members the type does not declare are ignored, so annotations (`@odata.etag`, `__metadata`,
/// the offline state flags) need no field. `JSONDecoder` is not used because it reads `Decimal`
/// and integers from JSON numbers only: V2's strings would not decode.
///
/// ```swift
/// struct Agency: Decodable { var agencynum: String; var name: String }
/// let agencies = try ODataDecoder().decodeEntities(Agency.self, from: response)
/// ```
public struct ODataDecoder: Sendable {
    /// How `Date` values are read.
    public enum DateDecodingStrategy: Sendable {
        /// Every OData form: `/Date(ms)/` (with or without an offset), ISO 8601 with `Z` or an
        /// offset (a date and time without one is UTC), and a date alone (midnight UTC).
        case odata
        /// The caller reads the JSON value (a string for every OData form) itself.
        case custom(@Sendable (JSONValue) throws -> Date)
    }

    public var dateDecodingStrategy: DateDecodingStrategy = .odata
    /// Handed to the types' `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    /// Decodes `value` as a `T`.
    ///
    /// - Throws: `DecodingError` naming the member path when the value does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder(value: value, codingPath: [], options: self).decodeValue(T.self)
    }
}

/// One value being decoded: the `Decoder` and its single-value container.
struct JSONValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: ODataDecoder

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let members = value.objectMembers else { throw mismatch(Dictionary<String, JSONValue>.self, "an object") }
        return KeyedDecodingContainer(KeyedJSONContainer<Key>(members: members, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = value.arrayValue else { throw mismatch([JSONValue].self, "an array") }
        return UnkeyedJSONContainer(elements: elements, codingPath: codingPath, options: options)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard let flag = value.boolValue else { throw mismatch(type, "true or false") }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard let text = value.stringValue else { throw mismatch(type, "a string") }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        if let number = value.numberValue { return number.doubleValue }
        switch value.stringValue {
        case "INF"?: return .infinity
        case "-INF"?: return -.infinity
        case "NaN"?: return .nan
        case let text?: if let number = JSONNumber(text) { return number.doubleValue }
        case nil: break
        }
        throw mismatch(type, "a number")
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    /// The EDM forms first (`Decimal`, `Date`, `UUID`, `Data`), then the type's own `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == Decimal.self, let decimal = try decimal() as? T { return decimal }
        if type == Date.self, let date = try date() as? T { return date }
        if type == UUID.self, let uuid = try uuid() as? T { return uuid }
        if type == Data.self, let data = try binary() as? T { return data }
        return try T(from: self)
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let text = value.numberValue?.text ?? value.stringValue
        guard let text, let integer = T(text) else { throw mismatch(type, "an integer that fits \(type)") }
        return integer
    }

    private func decimal() throws -> Decimal {
        let text = value.numberValue?.text ?? value.stringValue
        guard let text, JSONNumber(text) != nil, let decimal = Decimal(string: text) else {
            throw mismatch(Decimal.self, "a decimal number")
        }
        return decimal
    }

    private func date() throws -> Date {
        switch options.dateDecodingStrategy {
        case .custom(let read): return try read(value)
        case .odata:
            guard let text = value.stringValue, let date = ODataDateText.date(from: text) else {
                throw mismatch(Date.self, "a date: /Date(ms)/, ISO 8601 or YYYY-MM-DD")
            }
            return date
        }
    }

    private func uuid() throws -> UUID {
        guard let text = value.stringValue, let uuid = UUID(uuidString: text) else { throw mismatch(UUID.self, "a GUID") }
        return uuid
    }

    private func binary() throws -> Data {
        guard let text = value.stringValue else { throw mismatch(Data.self, "base64 text") }
        // V4 writes base64url; both read after mapping its two letters back and padding.
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { throw mismatch(Data.self, "base64 text") }
        return data
    }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "expected \(expected), found \(Self.describe(value))"))
    }

    /// A short description of a JSON value for error messages: its kind, and a string's or
    /// number's text cut at 40 characters.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let number): "the number \(number.text.prefix(40))"
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object's members, by key.
private struct KeyedJSONContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONMember]
    let codingPath: [any CodingKey]
    let options: ODataDecoder

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

    private func decoder(for key: Key) throws -> JSONValueDecoder {
        // The last member of a name wins, as JSONValue's subscript has it.
        guard let member = members.last(where: { $0.key == key.stringValue }) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "the object has no member \"\(key.stringValue)\""))
        }
        return JSONValueDecoder(value: member.value, codingPath: codingPath + [key], options: options)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(for: key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(value: .object(members), codingPath: codingPath, options: options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
}

/// An array's elements, in order.
private struct UnkeyedJSONContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let options: ODataDecoder
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], options: ODataDecoder) {
        self.elements = elements
        self.codingPath = codingPath
        self.options = options
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The decoder of the next element, moving past it.
    private mutating func next(_ type: Any.Type) throws -> JSONValueDecoder {
        guard elements.indices.contains(currentIndex) else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath, debugDescription: "the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoder(value: elements[currentIndex], codingPath: codingPath + [ElementKey(currentIndex)],
                                options: options)
    }

    mutating func decodeNil() throws -> Bool {
        guard elements.indices.contains(currentIndex), elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}

/// The coding key of an array element: its index.
private struct ElementKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        intValue = index
        stringValue = "[\(index)]"
    }

    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}
