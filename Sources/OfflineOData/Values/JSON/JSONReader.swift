/// A pull reader over one UTF-8 JSON document: the caller asks for one ``JSONEvent`` at a time.
///
/// The download path walks an OData page of thousands of entities with it and writes each entity
/// into SQLite as it goes, without building a tree; strings and numbers arrive as ``JSONToken``s into
/// the input and are only decoded when asked for.
///
/// ```swift
/// var reader = JSONReader(bytes: page)
/// guard try reader.next() == .objectStart else { ... }
/// while let key = try reader.nextKey() {
///     if reader.token(key, equals: "value") {
///         guard try reader.next() == .arrayStart else { ... }
///         while try reader.nextElement() { let entity = try reader.readValue() /* or walk it */ }
///     } else if reader.token(key, equals: "@odata.nextLink") {
///         nextLink = try reader.readString()
///     } else {
///         try reader.skipValue()
///     }
/// }
/// ```
///
/// Behaviour:
/// - The whole document is validated as it is read (RFC 8259): any value may be the top-level
///   value, whitespace is space, tab, CR and LF, and anything but whitespace after the top-level
///   value is an error. A UTF-8 byte order mark at the very start is skipped.
/// - String rules (escapes, surrogates, UTF-8, control characters) are in ``JSONStringScanner``:
///   every violation is an error; nothing is silently replaced.
/// - Nesting deeper than ``Options/maximumDepth`` is an error. The reader keeps its own stack and
///   never recurses, so no input can overflow the call stack.
/// - Every error is an ``ODataError`` with code ``ODataError/Code/syntax`` and the byte offset of the
///   fault in ``ODataError/offset``. After an error, ``next()`` throws the same error again.
/// - Duplicate keys are reported as they occur; the reader has no opinion about them
///   (``JSONValue`` documents its policy).
///
/// Incremental input: the reader parses one complete document held in memory. The HTTP layer
/// accumulates one page (bounded by the server's page size, about 1-5 MB) and hands it over whole;
/// this keeps the hot loops free of "need more bytes" states, and memory stays flat across pages.
/// The reader copies the page once on creation (see ``JSONInput``), so the caller's buffer can be
/// reused at once; tokens stay valid as long as the reader (or a copy of it) lives.
package struct JSONReader: Sendable {
    /// Limits the reader enforces.
    package struct Options: Sendable {
        /// How many arrays and objects may be open at once. Deeper input is a syntax error.
        ///
        /// The reader itself handles any depth; the limit exists because ``JSONValue`` trees are
        /// compared and released recursively, so values much deeper than a few thousand levels would
        /// use a lot of call stack.
        package var maximumDepth: Int
        /// When true, ``readValue()`` (and ``JSONValue/parse(_:options:)``) reject an object with
        /// two members of the same name; when false, they keep both.
        package var rejectsDuplicateKeys: Bool

        package init(maximumDepth: Int = 512, rejectsDuplicateKeys: Bool = false) {
            self.maximumDepth = maximumDepth
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
        }
    }

    /// What the reader expects next.
    private enum State: Sendable {
        case documentStart
        case valueAfterColon
        case valueAfterComma
        case firstElementOrEnd
        case firstMemberOrEnd
        case afterValue
        case finished
    }

    private enum Container: UInt8, Sendable {
        case object
        case array
    }

    let input: JSONInput
    package let options: Options
    private var position: Int
    private var state: State = .documentStart
    private var containers: [Container] = []
    private var peeked: JSONEvent?
    private var failure: ODataError?

    /// A reader over a copy of `bytes`.
    package init(bytes: [UInt8], options: Options = Options()) {
        self.init(input: bytes.withUnsafeBytes { JSONInput($0) }, options: options)
    }

    /// A reader over a copy of the bytes at `bytes` (for buffers that come from C, such as libcurl's).
    package init(copying bytes: UnsafeRawBufferPointer, options: Options = Options()) {
        self.init(input: JSONInput(bytes), options: options)
    }

    /// A reader over the UTF-8 of `text`.
    package init(text: String, options: Options = Options()) {
        var text = text
        self.init(input: text.withUTF8 { JSONInput(UnsafeRawBufferPointer($0)) }, options: options)
    }

    /// A reader over bytes already gathered in reading form (``JSONInputBuilder``): no copy.
    init(input: JSONInput, options: Options = Options()) {
        self.input = input
        self.options = options
        let bom = input.count >= 3 && input.base[0] == 0xEF && input.base[1] == 0xBB && input.base[2] == 0xBF
        position = bom ? 3 : 0
        containers.reserveCapacity(16)
    }

    /// The byte offset where the next event's text starts (or whitespace before it).
    package var offset: Int { position }

    /// How many arrays and objects are open.
    package var depth: Int { containers.count }

    /// The input's length in bytes.
    package var inputCount: Int { input.count }

    // MARK: - Events

    /// Reads the next event. After the top-level value it returns ``JSONEvent/end`` (again and again).
    ///
    /// - Throws: ``ODataError/Code/syntax`` with the offset of the fault, for malformed input.
    package mutating func next() throws(ODataError) -> JSONEvent {
        if let event = peeked {
            peeked = nil
            return event
        }
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    /// The next event, without consuming it.
    package mutating func peek() throws(ODataError) -> JSONEvent {
        if let event = peeked { return event }
        let event = try next()
        peeked = event
        return event
    }

    @inline(__always)
    private mutating func step() throws(ODataError) -> JSONEvent {
        let p = input.base
        let count = input.count
        var i = skipWhitespace(p, position)
        switch state {
        case .afterValue:
            guard let top = containers.last else {
                guard i >= count else { throw .jsonSyntax("unexpected \(describeJSONByte(p[i])) after the JSON value", at: i) }
                position = i
                state = .finished
                return .end
            }
            let byte = p[i]
            if byte == UInt8(ascii: ",") {
                i = skipWhitespace(p, i + 1)
                if top == .object {
                    return try readKey(p, count, at: i, context: "after ',' in an object")
                }
                state = .valueAfterComma
                return try readValueStart(p, count, at: i)
            }
            if top == .object {
                guard byte == UInt8(ascii: "}") else {
                    throw .jsonSyntax("expected ',' or '}' after object member, found \(found(i))", at: i)
                }
                containers.removeLast()
                position = i + 1
                return .objectEnd
            }
            guard byte == UInt8(ascii: "]") else {
                throw .jsonSyntax("expected ',' or ']' after array element, found \(found(i))", at: i)
            }
            containers.removeLast()
            position = i + 1
            return .arrayEnd
        case .firstMemberOrEnd:
            if p[i] == UInt8(ascii: "}") {
                containers.removeLast()
                position = i + 1
                state = .afterValue
                return .objectEnd
            }
            return try readKey(p, count, at: i, context: "or '}' after '{'")
        case .firstElementOrEnd:
            if p[i] == UInt8(ascii: "]") {
                containers.removeLast()
                position = i + 1
                state = .afterValue
                return .arrayEnd
            }
            return try readValueStart(p, count, at: i)
        case .documentStart, .valueAfterColon, .valueAfterComma:
            return try readValueStart(p, count, at: i)
        case .finished:
            return .end
        }
    }

    @inline(__always)
    private func skipWhitespace(_ p: UnsafeMutablePointer<UInt8>, _ start: Int) -> Int {
        var i = start
        // The zero padding is not whitespace, so this stops at the end of the input.
        while true {
            let byte = p[i]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return i }
            i += 1
        }
    }

    private func found(_ index: Int) -> String {
        index >= input.count ? "end of input" : describeJSONByte(input.base[index])
    }

    /// Reads an object key and the colon after it; the member's value comes next.
    private mutating func readKey(_ p: UnsafeMutablePointer<UInt8>, _ count: Int, at i: Int, context: String) throws(ODataError) -> JSONEvent {
        guard p[i] == UInt8(ascii: "\"") else {
            throw .jsonSyntax("expected a member name in quotes \(context), found \(found(i))", at: i)
        }
        let (end, hasEscapes) = try JSONStringScanner.scan(p, count: count, from: i + 1)
        let colon = skipWhitespace(p, end + 1)
        guard p[colon] == UInt8(ascii: ":") else {
            throw .jsonSyntax("expected ':' after object key, found \(found(colon))", at: colon)
        }
        position = colon + 1
        state = .valueAfterColon
        return .key(JSONToken(range: (i + 1)..<end, hasEscapes: hasEscapes))
    }

    /// Reads the start of a value: a whole scalar, or the opening bracket of a container.
    private mutating func readValueStart(_ p: UnsafeMutablePointer<UInt8>, _ count: Int, at i: Int) throws(ODataError) -> JSONEvent {
        let byte = p[i]
        switch byte {
        case UInt8(ascii: "\""):
            let (end, hasEscapes) = try JSONStringScanner.scan(p, count: count, from: i + 1)
            position = end + 1
            state = .afterValue
            return .string(JSONToken(range: (i + 1)..<end, hasEscapes: hasEscapes))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (end, isInteger) = try JSONNumberGrammar.scan(input.buffer, from: i)
            position = end
            state = .afterValue
            return .number(JSONToken(range: i..<end, isInteger: isInteger))
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard containers.count < options.maximumDepth else {
                throw .jsonSyntax("nesting is deeper than the limit of \(options.maximumDepth) levels", at: i)
            }
            position = i + 1
            if byte == UInt8(ascii: "{") {
                containers.append(.object)
                state = .firstMemberOrEnd
                return .objectStart
            }
            containers.append(.array)
            state = .firstElementOrEnd
            return .arrayStart
        case UInt8(ascii: "t"):
            try expectLiteral("true", at: i)
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false", at: i)
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null", at: i)
            return .null
        default:
            let context = switch state {
            case .valueAfterColon: "after ':'"
            case .valueAfterComma: "after ',' in an array"
            case .firstElementOrEnd: "or ']' after '['"
            default: "(the document is empty or starts with something else)"
            }
            throw .jsonSyntax("expected a JSON value \(context), found \(found(i))", at: i)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString, at start: Int) throws(ODataError) {
        let p = input.base
        var i = start
        // Each byte is compared before the next is read, so the zero padding stops a short input.
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard p[i] == expected else {
                throw .jsonSyntax("invalid literal, expected '\(literal)', found \(found(i))", at: i)
            }
            i += 1
        }
        position = i
        state = .afterValue
    }

    // MARK: - Walking helpers

    /// Inside an object (after ``JSONEvent/objectStart`` or after a member's value): returns the next
    /// member's key, or nil after consuming the object's ``JSONEvent/objectEnd``.
    ///
    /// - Throws: ``ODataError/Code/syntax`` for malformed input, or when the next event is neither.
    package mutating func nextKey() throws(ODataError) -> JSONToken? {
        let offset = position
        switch try next() {
        case .key(let token): return token
        case .objectEnd: return nil
        default: throw .jsonSyntax("expected an object member or '}'", at: offset)
        }
    }

    /// Inside an array (after ``JSONEvent/arrayStart`` or after an element): returns true when
    /// another element follows (which the next call to ``next()``, ``readValue()`` or
    /// ``skipValue()`` reads), or false after consuming the array's ``JSONEvent/arrayEnd``.
    package mutating func nextElement() throws(ODataError) -> Bool {
        if try peek() == .arrayEnd {
            peeked = nil
            return false
        }
        return true
    }

    /// Skips the next value whole (after a key: the member's value), validating it on the way.
    package mutating func skipValue() throws(ODataError) {
        let offset = position
        var open = 0
        repeat {
            switch try next() {
            case .objectStart, .arrayStart: open += 1
            case .objectEnd, .arrayEnd: open -= 1
            case .key where open == 0: throw .jsonSyntax("expected a value, found an object key", at: offset)
            case .key: break
            case .end: throw .jsonSyntax("expected a value, found the end of the document", at: offset)
            default: break
            }
        } while open > 0
        if open < 0 { throw .jsonSyntax("expected a value, found the end of a container", at: offset) }
    }

    /// Reads the next value, which must be a string, and decodes it.
    package mutating func readString() throws(ODataError) -> String {
        let offset = position
        guard case .string(let token) = try next() else { throw .jsonSyntax("expected a string", at: offset) }
        return decodedString(token)
    }

    // MARK: - Token values

    /// Calls `body` with the raw bytes of `token` (still escaped for strings), without copying.
    package func withBytes<R, E: Error>(of token: JSONToken, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(input.slice(token.range))
    }

    /// The raw bytes of `token`, copied.
    package func bytes(of token: JSONToken) -> [UInt8] { Array(input.slice(token.range)) }

    /// The raw text of `token`: a number's exact text, or a string's text as written (escapes kept).
    package func text(of token: JSONToken) -> String { String(decoding: input.slice(token.range), as: UTF8.self) }

    /// The value of a string or key token, with escapes decoded.
    package func decodedString(_ token: JSONToken) -> String {
        let bytes = input.slice(token.range)
        guard token.hasEscapes else { return String(decoding: bytes, as: UTF8.self) }
        return JSONStringDecoder.decode(bytes)
    }

    /// Whether a string or key token's value equals `text`, without allocating for unescaped tokens.
    package func token(_ token: JSONToken, equals text: String) -> Bool {
        if token.hasEscapes { return decodedString(token) == text }
        let bytes = input.slice(token.range)
        return text.utf8.withContiguousStorageIfAvailable { bytes.elementsEqual($0) } ?? bytes.elementsEqual(text.utf8)
    }

    /// A number token's exact text as a ``JSONNumber``; nil when `token` is not a number token.
    package func number(_ token: JSONToken) -> JSONNumber? {
        let bytes = input.slice(token.range)
        return JSONNumberGrammar.isValid(bytes) ? JSONNumber(validated: String(decoding: bytes, as: UTF8.self)) : nil
    }

    /// A number token as an exact `Int64`; nil when it has a fraction or exponent or does not fit.
    package func int64(_ token: JSONToken) -> Int64? {
        token.isInteger ? JSONNumberGrammar.int64(input.slice(token.range)) : nil
    }

    /// A number token as the nearest `Double`.
    package func double(_ token: JSONToken) -> Double? { JSONNumberGrammar.double(input.slice(token.range)) }
}
