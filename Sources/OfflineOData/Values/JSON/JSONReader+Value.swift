extension JSONReader {
    /// Reads the next value (after a key: the member's value) into a ``JSONValue``, for when a whole
    /// subtree is wanted, such as one entity of a page.
    ///
    /// Builds with an explicit stack, never recursion. With ``Options/rejectsDuplicateKeys`` an
    /// object with a repeated key is a syntax error at the second key's offset.
    package mutating func readValue() throws(ODataError) -> JSONValue {
        // Finished children wait on one flat stack; each open container remembers where its
        // children start. Keys of open objects wait on a second stack.
        var values: [JSONValue] = []
        var keys: [(name: String, offset: Int)] = []
        var frames: [(isObject: Bool, valuesStart: Int, keysStart: Int)] = []
        let startOffset = offset
        while true {
            let value: JSONValue
            switch try next() {
            case .objectStart:
                frames.append((true, values.count, keys.count))
                continue
            case .arrayStart:
                frames.append((false, values.count, keys.count))
                continue
            case .key(let token):
                guard !frames.isEmpty else {
                    throw .jsonSyntax("expected a value, found an object key", at: startOffset)
                }
                keys.append((decodedString(token), token.range.lowerBound - 1))
                continue
            case .objectEnd, .arrayEnd:
                guard let frame = frames.popLast() else {
                    throw .jsonSyntax("expected a value, found the end of a container", at: startOffset)
                }
                let children = Array(values[frame.valuesStart...])
                values.removeSubrange(frame.valuesStart...)
                if frame.isObject {
                    let names = keys[frame.keysStart...]
                    if options.rejectsDuplicateKeys { try Self.checkUnique(names) }
                    value = .object(zip(names, children).map { JSONMember($0.0.name, $0.1) })
                    keys.removeSubrange(frame.keysStart...)
                } else {
                    value = .array(children)
                }
            case .string(let token): value = .string(decodedString(token))
            case .number(let token): value = .number(JSONNumber(validated: text(of: token)))
            case .bool(let flag): value = .bool(flag)
            case .null: value = .null
            case .end: throw .jsonSyntax("expected a value, found the end of the document", at: startOffset)
            }
            if frames.isEmpty { return value }
            values.append(value)
        }
    }

    private static func checkUnique(_ names: ArraySlice<(name: String, offset: Int)>) throws(ODataError) {
        var seen = Set<String>()
        for entry in names where !seen.insert(entry.name).inserted {
            throw .jsonSyntax("duplicate key \"\(entry.name)\" in object", at: entry.offset)
        }
    }
}

extension JSONValue {
    /// Parses one complete JSON document (a leading UTF-8 byte order mark is allowed), such as
    /// an answer's body, with the reader's default limits.
    ///
    /// - Throws: ``ODataError/Code/syntax`` with the byte offset of the fault.
    public static func parse(_ bytes: [UInt8]) throws(ODataError) -> JSONValue {
        try parse(bytes, options: JSONReader.Options())
    }

    /// Parses one complete JSON document from text, with the reader's default limits.
    public static func parse(_ text: String) throws(ODataError) -> JSONValue {
        try parse(text, options: JSONReader.Options())
    }

    /// Parses one complete JSON document with the given limits (the reader is not public API).
    package static func parse(_ bytes: [UInt8], options: JSONReader.Options) throws(ODataError) -> JSONValue {
        var reader = JSONReader(bytes: bytes, options: options)
        return try reader.readDocument()
    }

    /// Parses one complete JSON document from text with the given limits.
    package static func parse(_ text: String, options: JSONReader.Options) throws(ODataError) -> JSONValue {
        var reader = JSONReader(text: text, options: options)
        return try reader.readDocument()
    }
}

extension JSONReader {
    /// Reads the top-level value and checks that nothing but whitespace follows.
    mutating func readDocument() throws(ODataError) -> JSONValue {
        let value = try readValue()
        _ = try next() // .end, or the error for trailing data
        return value
    }
}
