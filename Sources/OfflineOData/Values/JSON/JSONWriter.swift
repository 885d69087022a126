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
@_spi(Tool) public struct JSONWriter: Sendable {
    /// What ``writeNumber(_:nonFinite:)-(Double,_)`` does with infinities and NaN, which JSON numbers cannot express.
    package enum NonFiniteDoubles: Sendable {
        /// Throw ``ODataError/Code/misuse``.
        case fail
        /// Write `null`.
        case writeNull
        /// Write the strings `"INF"`, `"-INF"` and `"NaN"`, as OData does for `IEEE754Compatible=true`.
        case writeODataString
    }

    /// A key escaped once and reused: `"name":` as bytes.
    package struct EncodedKey: Sendable {
        let bytes: [UInt8]

        package init(_ name: String) {
            var writer = JSONWriter(capacity: name.utf8.count + 8)
            writer.writeKey(name)
            bytes = writer.bytes
        }
    }

    /// The output is `storage[0..<length]`; the rest of `storage` is zero-filled room, so that each
    /// write checks the room once and then stores through a pointer.
    private var storage: [UInt8]
    private var length = 0
    /// The next key or value needs a comma before it.
    private var needsComma = false
    /// A comma is due before the next byte written (see ``write(room:_:)``).
    private var pendingComma = false
    private var depth = 0
    private var hasValue = false
    /// Strings are written as their bare text, without quotes or escapes: a property's raw value
    /// (`/$value`) is written by the same code as its JSON, and never parsed back.
    package var writesStringsBare = false

    /// A writer with room for `capacity` bytes before it first reallocates.
    @_spi(Tool) public init(capacity: Int = 4096) {
        storage = []
        storage.reserveCapacity(max(capacity, 16))
    }

    /// A writer that appends to `bytes`.
    package init(appendingTo bytes: [UInt8]) {
        storage = bytes
        length = bytes.count
    }

    /// Everything written so far (a copy; ``finish()`` hands the buffer over without one).
    @_spi(Tool) public var bytes: [UInt8] { Array(storage[0..<length]) }

    /// How many bytes have been written.
    package var count: Int { length }

    /// True when one complete top-level value has been written and every container is closed.
    package var isComplete: Bool { depth == 0 && hasValue }

    /// Returns the document and leaves the writer empty.
    ///
    /// - Throws: ``ODataError/Code/misuse`` when a container is still open or nothing was written.
    package mutating func finish() throws(ODataError) -> [UInt8] {
        guard isComplete else {
            throw ODataError(.misuse, depth > 0 ? "JSON writer finished with \(depth) unclosed containers" : "JSON writer finished without a value")
        }
        var result: [UInt8] = []
        swap(&result, &storage)
        result.removeSubrange(length...)
        length = 0
        needsComma = false
        pendingComma = false
        hasValue = false
        return result
    }

    // MARK: - Output buffer

    /// Runs `body` with a pointer to at least `room` free bytes; `body` returns how many it wrote.
    /// A pending comma goes first, in the same step, so that each value costs one buffer access.
    @inline(__always)
    private mutating func write(room: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        let comma = pendingComma
        let total = room &+ 1
        if storage.count &- length < total { grow(total) }
        let start = length
        let written = storage.withUnsafeMutableBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress, buffer.count &- start >= total else { return 0 }
            guard comma else { return body(base + start) }
            base[start] = UInt8(ascii: ",")
            return 1 &+ body(base + start + 1)
        }
        pendingComma = false
        length = start &+ written
    }

    /// Extends the zero-filled room by at least `room` bytes, a chunk at a time: zeroing a chunk just
    /// before writing it is nearly free (it is in cache), unlike zeroing the whole capacity up front.
    /// The array's own capacity still grows geometrically.
    private mutating func grow(_ room: Int) {
        // Doubling from 256 bytes, but never zeroing more than 64 KiB ahead of the writes.
        let chunk = min(max(storage.count, 256), 64 * 1024)
        let (needed, overflow) = length.addingReportingOverflow(room)
        let target = overflow ? Int.max : max(needed, storage.count &+ chunk)
        storage.append(contentsOf: repeatElement(0, count: max(target &- storage.count, 0)))
    }

    @inline(__always)
    private mutating func writeByte(_ byte: UInt8) {
        write(room: 1) { $0[0] = byte; return 1 }
    }

    @inline(__always)
    private mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        write(room: bytes.count) { output in
            UnsafeMutableRawPointer(output).copyMemory(from: source, byteCount: bytes.count)
            return bytes.count
        }
    }

    @inline(__always)
    private mutating func writeQuoted(_ text: UnsafeBufferPointer<UInt8>) {
        let segment = JSONStringEscaper.segmentLength
        if text.count <= segment {
            write(room: 6 &* text.count &+ 2) { JSONStringEscaper.writeQuoted(text, to: $0) }
            return
        }
        writeByte(UInt8(ascii: "\""))
        var start = 0
        while start < text.count {
            let piece = UnsafeBufferPointer(rebasing: text[start..<min(start &+ segment, text.count)])
            write(room: 6 &* piece.count) { JSONStringEscaper.writeEscaped(piece, to: $0) }
            start &+= segment
        }
        writeByte(UInt8(ascii: "\""))
    }

    @inline(__always)
    private mutating func beforeValue() {
        pendingComma = needsComma
        needsComma = true
        hasValue = true
    }

    // MARK: - Containers

    /// Opens an object (`{`); write keys and values, then ``endObject()``.
    @_spi(Tool) public mutating func beginObject() {
        beforeValue()
        writeByte(UInt8(ascii: "{"))
        needsComma = false
        depth &+= 1
    }

    /// Closes the innermost object (`}`).
    @_spi(Tool) public mutating func endObject() {
        writeByte(UInt8(ascii: "}"))
        needsComma = true
        depth &-= 1
    }

    /// Opens an array (`[`); write values, then ``endArray()``.
    @_spi(Tool) public mutating func beginArray() {
        beforeValue()
        writeByte(UInt8(ascii: "["))
        needsComma = false
        depth &+= 1
    }

    /// Closes the innermost array (`]`).
    @_spi(Tool) public mutating func endArray() {
        writeByte(UInt8(ascii: "]"))
        needsComma = true
        depth &-= 1
    }

    // MARK: - Keys

    /// Writes an object member's name; the member's value comes next.
    @_spi(Tool) public mutating func writeKey(_ name: String) {
        pendingComma = needsComma
        var name = name
        name.withUTF8 { writeQuoted($0) }
        writeByte(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key escaped beforehand (the fast way for keys repeated in every entity).
    package mutating func writeKey(_ key: EncodedKey) {
        pendingComma = needsComma
        key.bytes.withUnsafeBufferPointer { writeBytes(UnsafeRawBufferPointer($0)) }
        needsComma = false
    }

    /// Writes a key escaped beforehand, from the bytes of an ``EncodedKey`` kept elsewhere (an entity
    /// layout keeps all its keys in one buffer).
    package mutating func writeKey(encoded key: UnsafeBufferPointer<UInt8>) {
        pendingComma = needsComma
        writeBytes(UnsafeRawBufferPointer(key))
        needsComma = false
    }

    // MARK: - Scalars

    /// Writes a string value, escaped as RFC 8259 requires (see ``JSONStringEscaper``).
    @_spi(Tool) public mutating func writeString(_ value: String) {
        beforeValue()
        var value = value
        if writesStringsBare { return value.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) } }
        value.withUTF8 { writeQuoted($0) }
    }

    /// Writes UTF-8 text given as bytes (from SQLite or C). Ill-formed UTF-8 is written as U+FFFD.
    package mutating func writeString(utf8 value: UnsafeBufferPointer<UInt8>) {
        beforeValue()
        if JSONStringEscaper.isWellFormedUTF8(value) {
            return writesStringsBare ? writeBytes(UnsafeRawBufferPointer(value)) : writeQuoted(value)
        }
        // Rare: repair through String, which replaces each ill-formed sequence with U+FFFD.
        var repaired = String(decoding: value, as: UTF8.self)
        repaired.withUTF8 { writesStringsBare ? writeBytes(UnsafeRawBufferPointer($0)) : writeQuoted($0) }
    }

    /// Writes an integer in decimal, exactly.
    @_spi(Tool) public mutating func writeNumber(_ value: Int64) {
        beforeValue()
        write(room: 20) { output in
            var magnitude = value.magnitude
            var digits = 0
            var probe = magnitude
            repeat {
                digits += 1
                probe /= 10
            } while probe > 0
            var o = 0
            if value < 0 {
                output[0] = UInt8(ascii: "-")
                o = 1
            }
            var i = o + digits
            let end = i
            repeat {
                i -= 1
                output[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while i > o
            return end
        }
    }

    /// Writes an integer in decimal, exactly.
    @_spi(Tool) public mutating func writeNumber(_ value: Int) { writeNumber(Int64(value)) }

    /// Writes a double as the shortest text that reads back as the same double.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for an infinity or NaN when `nonFinite` is ``NonFiniteDoubles/fail``.
    package mutating func writeNumber(_ value: Double, nonFinite: NonFiniteDoubles = .fail) throws(ODataError) {
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
        var text = value.description
        text.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a number exactly as its text.
    @_spi(Tool) public mutating func writeNumber(_ value: JSONNumber) {
        beforeValue()
        var text = value.text
        text.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes number text exactly (an `Edm.Decimal` from the store, say), after checking it is a
    /// JSON number.
    ///
    /// - Throws: ``ODataError/Code/syntax`` when `text` is not a JSON number; nothing is written then.
    package mutating func writeNumber(text: UnsafeBufferPointer<UInt8>) throws(ODataError) {
        guard JSONNumberGrammar.isValid(text) else {
            throw ODataError(.syntax, "'\(String(decoding: text, as: UTF8.self))' is not a JSON number")
        }
        beforeValue()
        writeBytes(UnsafeRawBufferPointer(text))
    }

    /// Writes number text exactly, after checking it is a JSON number.
    package mutating func writeNumber(text: String) throws(ODataError) {
        var text = text
        let valid = text.withUTF8 { JSONNumberGrammar.isValid($0) }
        guard valid else { throw ODataError(.syntax, "'\(text)' is not a JSON number") }
        beforeValue()
        text.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `true` or `false`.
    @_spi(Tool) public mutating func writeBool(_ value: Bool) {
        beforeValue()
        write(room: 5) { output in
            if value {
                output[0] = UInt8(ascii: "t"); output[1] = UInt8(ascii: "r"); output[2] = UInt8(ascii: "u"); output[3] = UInt8(ascii: "e")
                return 4
            }
            output[0] = UInt8(ascii: "f"); output[1] = UInt8(ascii: "a"); output[2] = UInt8(ascii: "l"); output[3] = UInt8(ascii: "s")
            output[4] = UInt8(ascii: "e")
            return 5
        }
    }

    /// Writes `null`.
    @_spi(Tool) public mutating func writeNull() {
        beforeValue()
        write(room: 4) { output in
            output[0] = UInt8(ascii: "n"); output[1] = UInt8(ascii: "u"); output[2] = UInt8(ascii: "l"); output[3] = UInt8(ascii: "l")
            return 4
        }
    }

    // MARK: - Fragments and trees

    /// Writes a complete JSON value that is already encoded (an entity kept as JSON, say), placing
    /// the comma before it as for any value. The bytes are trusted, not checked.
    package mutating func writeRaw(_ fragment: UnsafeRawBufferPointer) {
        beforeValue()
        writeBytes(fragment)
    }

    /// Writes a complete, already encoded JSON value; see ``writeRaw(_:)-(UnsafeRawBufferPointer)``.
    package mutating func writeRaw(_ fragment: [UInt8]) {
        beforeValue()
        fragment.withUnsafeBufferPointer { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a tree value. Recursive: trees read by ``JSONReader`` are bounded by its depth limit.
    @_spi(Tool) public mutating func writeValue(_ value: JSONValue) {
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
    package func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.writeValue(self)
        return (try? writer.finish()) ?? []
    }
}
