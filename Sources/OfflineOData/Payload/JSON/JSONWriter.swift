/// Writes JSON into a `[UInt8]` buffer, for OData responses of tens of thousands of entities.
///
/// Commas are placed automatically; the caller alternates keys and values inside objects and
/// balances `begin…`/`end…` (``finish()`` checks the balance). Nothing goes through intermediate
/// `String`s: text is escaped straight from its UTF-8 into the buffer, and keys that repeat for
/// every entity can be escaped once as ``JSONWriter/EncodedKey``s.
///
/// ```swift
/// var writer = JSONWriter(capacity: 1 << 20)
/// writer.beginObject()
/// writer.writeKey("value")
/// writer.beginArray()
/// for row in rows { writer.beginObject(); writer.writeKey(idKey); writer.writeNumber(row.id); writer.endObject() }
/// writer.endArray()
/// writer.endObject()
/// let body = try writer.finish()
/// ```
public struct JSONWriter {
    /// What ``writeNumber(_:nonFinite:)-(Double,_)`` does with infinities and NaN, which JSON numbers cannot express.
    public enum NonFiniteDoubles: Sendable {
        /// Throw ``ODataError/Code/misuse``.
        case fail
        /// Write `null`.
        case writeNull
        /// Write the strings `"INF"`, `"-INF"` and `"NaN"`, as OData does for `IEEE754Compatible=true`.
        case writeODataString
    }

    /// A key escaped once and reused: `"name":` as bytes.
    public struct EncodedKey: Sendable {
        let bytes: [UInt8]

        public init(_ name: String) {
            var bytes: [UInt8] = []
            var name = name
            name.withUTF8 { JSONStringEscaper.appendQuoted($0, to: &bytes) }
            bytes.append(UInt8(ascii: ":"))
            self.bytes = bytes
        }
    }

    /// Everything written so far.
    public private(set) var bytes: [UInt8]
    private var needsComma = false
    private var depth = 0
    private var hasValue = false

    /// A writer with room for `capacity` bytes before the buffer first grows.
    public init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(max(capacity, 0))
    }

    /// A writer that appends to `bytes`.
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// True when one complete top-level value has been written and every container is closed.
    public var isComplete: Bool { depth == 0 && hasValue }

    /// Returns the document and leaves the writer empty.
    ///
    /// - Throws: ``ODataError/Code/misuse`` when a container is still open or nothing was written.
    public mutating func finish() throws(ODataError) -> [UInt8] {
        guard isComplete else {
            throw ODataError(.misuse, depth > 0 ? "JSON writer finished with \(depth) unclosed containers" : "JSON writer finished without a value")
        }
        defer { bytes = []; needsComma = false; hasValue = false }
        return bytes
    }

    @inline(__always)
    private mutating func beforeValue() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        hasValue = true
    }

    // MARK: - Containers

    public mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        depth &+= 1
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
        depth &-= 1
    }

    public mutating func beginArray() {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        depth &+= 1
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
        depth &-= 1
    }

    // MARK: - Keys

    /// Writes an object member's name; the member's value comes next.
    public mutating func writeKey(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        var name = name
        name.withUTF8 { JSONStringEscaper.appendQuoted($0, to: &bytes) }
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key escaped beforehand (the fast way for keys repeated in every entity).
    public mutating func writeKey(_ key: EncodedKey) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: key.bytes)
        needsComma = false
    }

    // MARK: - Scalars

    public mutating func writeString(_ value: String) {
        beforeValue()
        var value = value
        value.withUTF8 { JSONStringEscaper.appendQuoted($0, to: &bytes) }
    }

    /// Writes UTF-8 text given as bytes (from SQLite or C). Ill-formed UTF-8 is written as U+FFFD.
    public mutating func writeString(utf8 value: UnsafeBufferPointer<UInt8>) {
        beforeValue()
        JSONStringEscaper.appendQuotedRepairing(value, to: &bytes)
    }

    public mutating func writeNumber(_ value: Int64) {
        beforeValue()
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = digits.count
            while magnitude > 0 && i > 0 {
                i -= 1
                digits[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    public mutating func writeNumber(_ value: Int) { writeNumber(Int64(value)) }

    /// Writes a double as the shortest text that reads back as the same double.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for an infinity or NaN when `nonFinite` is ``NonFiniteDoubles/fail``.
    public mutating func writeNumber(_ value: Double, nonFinite: NonFiniteDoubles = .fail) throws(ODataError) {
        guard value.isFinite else {
            switch nonFinite {
            case .fail: throw ODataError(.misuse, "JSON cannot represent the number \(value)")
            case .writeNull: return writeNull()
            case .writeODataString: return writeString(value.isNaN ? "NaN" : value < 0 ? "-INF" : "INF")
            }
        }
        beforeValue()
        // Double.description is already the shortest round-trip form and always valid JSON
        // (`1.0`, `1e-05`, `5e-324`); short results do not allocate.
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes a number exactly as its text.
    public mutating func writeNumber(_ value: JSONNumber) {
        beforeValue()
        bytes.append(contentsOf: value.text.utf8)
    }

    /// Writes number text exactly (an `Edm.Decimal` from the store, say), after checking it is a
    /// JSON number.
    ///
    /// - Throws: ``ODataError/Code/syntax`` when `text` is not a JSON number; nothing is written then.
    public mutating func writeNumber(text: UnsafeBufferPointer<UInt8>) throws(ODataError) {
        guard JSONNumberGrammar.isValid(text) else {
            throw ODataError(.syntax, "'\(String(decoding: text, as: UTF8.self))' is not a JSON number")
        }
        beforeValue()
        bytes.append(contentsOf: text)
    }

    /// Writes number text exactly, after checking it is a JSON number.
    public mutating func writeNumber(text: String) throws(ODataError) {
        guard let number = JSONNumber(text) else {
            throw ODataError(.syntax, "'\(text)' is not a JSON number")
        }
        writeNumber(number)
    }

    public mutating func writeBool(_ value: Bool) {
        beforeValue()
        if value {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
    }

    public mutating func writeNull() {
        beforeValue()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    // MARK: - Fragments and trees

    /// Writes a complete JSON value that is already encoded (an entity kept as JSON, say), placing
    /// the comma before it as for any value. The bytes are trusted, not checked.
    public mutating func writeRaw(_ fragment: UnsafeRawBufferPointer) {
        beforeValue()
        bytes.append(contentsOf: fragment)
    }

    /// Writes a complete, already encoded JSON value; see ``writeRaw(_:)-(UnsafeRawBufferPointer)``.
    public mutating func writeRaw(_ fragment: [UInt8]) {
        beforeValue()
        bytes.append(contentsOf: fragment)
    }

    /// Writes a tree value. Recursive: trees read by ``JSONReader`` are bounded by its depth limit.
    public mutating func writeValue(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let flag): writeBool(flag)
        case .number(let number): writeNumber(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            beginArray()
            for element in elements { writeValue(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                writeKey(member.key)
                writeValue(member.value)
            }
            endObject()
        }
    }
}

extension JSONValue {
    /// The value as compact JSON (no whitespace), members in their order.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.writeValue(self)
        return writer.bytes
    }
}
