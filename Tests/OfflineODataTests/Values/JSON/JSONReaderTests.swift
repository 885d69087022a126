import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct JSONReaderTests {
    @Test func reportsEventsWithTokensIntoTheInput() throws {
        let text = #"{"a":[1,"x",true,null],"b\n":-2.5}"#
        var reader = JSONReader(text: text)
        var events: [JSONEvent] = []
        while true {
            let event = try reader.next()
            events.append(event)
            if event == .end { break }
        }
        #expect(events == [
            .objectStart,
            .key(JSONToken(range: 2..<3)),
            .arrayStart,
            .number(JSONToken(range: 6..<7, isInteger: true)),
            .string(JSONToken(range: 9..<10)),
            .bool(true),
            .null,
            .arrayEnd,
            .key(JSONToken(range: 24..<27, hasEscapes: true)),
            .number(JSONToken(range: 29..<33)),
            .objectEnd,
            .end,
        ])
        #expect(reader.decodedString(JSONToken(range: 24..<27, hasEscapes: true)) == "b\n")
        #expect(reader.text(of: JSONToken(range: 29..<33)) == "-2.5")
        #expect(reader.number(JSONToken(range: 29..<33))?.text == "-2.5")
        #expect(reader.number(JSONToken(range: 2..<3)) == nil)
        #expect(try reader.next() == .end)
    }

    @Test func convertsNumberTokensExactlyOrNotAtAll() throws {
        var reader = JSONReader(text: "[9223372036854775807,-9223372036854775808,9223372036854775808,1.5,1e3,-0]")
        #expect(try reader.next() == .arrayStart)
        var int64s: [Int64?] = []
        var doubles: [Double?] = []
        while case .number(let token) = try reader.next() {
            int64s.append(reader.int64(token))
            doubles.append(reader.double(token))
        }
        #expect(int64s == [Int64.max, Int64.min, nil, nil, nil, 0])
        #expect(doubles == [0x1p63, -0x1p63, 0x1p63, 1.5, 1000, -0.0])
    }

    /// The fast path for short decimals (no String) gives the standard library's double, bit for bit.
    @Test func readsDoublesAsTheStandardLibraryDoes() {
        var texts = ["0", "-0", "0.0", "-0.0", "0.05", "1.50", "100", "1e22", "1e23", "1E-22", "1e-23", "123456789012345",
                     "1234567890123456", "0.1", "0.3", "2.5e-3", "-7.25E+2", "9007199254740993", "0.000000000000000000001",
                     "4.35", "1.7976931348623157e308", "5e-324", "0e99999", "12.625", "3.14159265358979"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            let mantissa = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let point = Int.random(in: 0...digits, using: &generator)
            // JSON allows no leading zeros.
            let integerDigits = String(mantissa.prefix(point).drop { $0 == "0" })
            text += integerDigits.isEmpty ? "0" : integerDigits
            if point < digits { text += "." + mantissa.dropFirst(point) }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -30...30, using: &generator))" }
            texts.append(text)
        }
        for text in texts {
            let read = Array(text.utf8).withUnsafeBufferPointer { JSONNumberGrammar.double($0) }
            let expected = Double(text)
            #expect(read?.bitPattern == expected?.bitPattern, "\(text)")
        }
    }

    @Test func comparesKeysWithoutDecodingUnlessEscaped() throws {
        var reader = JSONReader(text: #"{"value":1,"v\u0061lue":2,"valu":3}"#)
        _ = try reader.next()
        var matches: [Bool] = []
        while let key = try reader.nextKey() {
            matches.append(reader.token(key, equals: "value"))
            try reader.skipValue()
        }
        #expect(matches == [true, true, false])
    }

    @Test func skipsWholeSubtrees() throws {
        var reader = JSONReader(text: #"{"skip":{"a":[1,{"b":[]}],"c":"d"},"keep":"yes"}"#)
        _ = try reader.next()
        #expect(try reader.nextKey().map { reader.decodedString($0) } == "skip")
        try reader.skipValue()
        #expect(try reader.nextKey().map { reader.decodedString($0) } == "keep")
        #expect(try reader.readString() == "yes")
        #expect(try reader.nextKey() == nil)
        #expect(try reader.next() == .end)
    }

    @Test func skipValueRefusesToSkipAKeyOrAnEnd() throws {
        var reader = JSONReader(text: "[]")
        _ = try reader.next()
        #expect(throws: ODataError.self) { try reader.skipValue() }
        var objectReader = JSONReader(text: #"{"a":1}"#)
        _ = try objectReader.next()
        #expect(throws: ODataError.self) { try objectReader.skipValue() }
    }

    @Test func readValueRefusesToStartAtAKeyOrAnEnd() throws {
        var reader = JSONReader(text: #"{"a":1}"#)
        _ = try reader.next()
        #expect(throws: ODataError.self) { try reader.readValue() }
        var arrayReader = JSONReader(text: "[]")
        _ = try arrayReader.next()
        #expect(throws: ODataError.self) { try arrayReader.readValue() }
    }

    @Test func walksAV4PageWithTheHelpers() throws {
        let page = #"""
        {"@odata.context":"$metadata#People","value":[{"ID":1,"Name":"A"},{"ID":2,"Name":"B\u00e9"}],
         "@odata.nextLink":"People?$skiptoken=2"}
        """#
        var reader = JSONReader(text: page)
        #expect(try reader.next() == .objectStart)
        var entities: [JSONValue] = []
        var nextLink: String?
        while let key = try reader.nextKey() {
            if reader.token(key, equals: "value") {
                #expect(try reader.next() == .arrayStart)
                while try reader.nextElement() { entities.append(try reader.readValue()) }
            } else if reader.token(key, equals: "@odata.nextLink") {
                nextLink = try reader.readString()
            } else {
                try reader.skipValue()
            }
        }
        #expect(try reader.next() == .end)
        #expect(entities == [["ID": 1, "Name": "A"], ["ID": 2, "Name": "Bé"]])
        #expect(nextLink == "People?$skiptoken=2")
    }

    @Test func walksAV2PageWithTheHelpers() throws {
        var reader = JSONReader(text: #"{"d":{"results":[{"a":1},{"a":2}],"__next":"n"}}"#)
        #expect(try reader.next() == .objectStart)
        #expect(try reader.nextKey().map { reader.token($0, equals: "d") } == true)
        #expect(try reader.next() == .objectStart)
        var count = 0
        var next: String?
        while let key = try reader.nextKey() {
            if reader.token(key, equals: "results") {
                #expect(try reader.next() == .arrayStart)
                while try reader.nextElement() {
                    try reader.skipValue()
                    count += 1
                }
            } else if reader.token(key, equals: "__next") {
                next = try reader.readString()
            }
        }
        #expect(try reader.nextKey() == nil)
        #expect(count == 2)
        #expect(next == "n")
    }

    @Test func exposesRawBytesAndDepth() throws {
        var reader = JSONReader(text: #"[{"k":"a\"b"}]"#)
        #expect(reader.inputCount == 14)
        _ = try reader.next()
        _ = try reader.next()
        #expect(reader.depth == 2)
        guard case .key(let key) = try reader.next(), case .string(let value) = try reader.next() else {
            Issue.record("expected a key and a string")
            return
        }
        #expect(reader.bytes(of: key) == Array("k".utf8))
        #expect(reader.withBytes(of: value) { Array($0) } == Array(#"a\"b"#.utf8))
        #expect(reader.text(of: value) == #"a\"b"#)
        #expect(reader.decodedString(value) == "a\"b")
        #expect(try reader.next() == .objectEnd)
        #expect(reader.depth == 1)
    }

    @Test func peekDoesNotConsume() throws {
        var reader = JSONReader(text: "[true]")
        #expect(try reader.peek() == .arrayStart)
        #expect(try reader.next() == .arrayStart)
        #expect(try reader.peek() == .bool(true))
        #expect(try reader.peek() == .bool(true))
        #expect(try reader.next() == .bool(true))
        #expect(try reader.nextElement() == false)
        #expect(try reader.next() == .end)
    }

    @Test func offsetsCountTheByteOrderMark() throws {
        var reader = JSONReader(bytes: [0xEF, 0xBB, 0xBF] + Array(#"["a"]"#.utf8))
        #expect(reader.offset == 3)
        _ = try reader.next()
        #expect(try reader.next() == .string(JSONToken(range: 5..<6)))
    }

    @Test func readsFromARawBuffer() throws {
        let bytes: [UInt8] = Array("[1]".utf8)
        var reader = bytes.withUnsafeBytes { JSONReader(copying: $0) }
        #expect(try reader.readValue() == [1])
    }

    @Test func tokensFromAnotherReaderNeverReadOutOfBounds() {
        let reader = JSONReader(text: "1")
        let foreign = JSONToken(range: 5..<500, hasEscapes: true)
        #expect(reader.decodedString(foreign) == "")
        #expect(reader.int64(JSONToken(range: -3..<9, isInteger: true)) == 1)
    }

    @Test func decodesEscapesToTheSameTextAsPython() throws {
        // Expected bytes from Python: json.loads(r'"\ud83d\ude00\u00e9\u0000"').encode()
        let value = try JSONValue.parse(#""\ud83d\ude00\u00e9\u0000""#)
        #expect(value.stringValue.map { Array($0.utf8) } == [0xF0, 0x9F, 0x98, 0x80, 0xC3, 0xA9, 0x00])
    }

    @Test func readValueRejectsDuplicateKeysWhenAsked() {
        do {
            _ = try JSONValue.parse(#"{"a":1,"b":{"x":1,"x":2}}"#, options: .init(rejectsDuplicateKeys: true))
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.offset == 18)
            #expect(error.message.contains("duplicate key \"x\""))
        }
    }
}
