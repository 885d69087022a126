import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct JSONWriterTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func placesCommasInObjectsAndArrays() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("a")
        writer.beginArray()
        writer.writeNumber(1)
        writer.writeString("x")
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.writeBool(true)
        writer.writeBool(false)
        writer.writeNull()
        writer.endArray()
        writer.writeKey(JSONWriter.EncodedKey("b"))
        writer.writeNumber(-5)
        writer.endObject()
        #expect(text(try writer.finish()) == #"{"a":[1,"x",{},[],true,false,null],"b":-5}"#)
    }

    /// Expected text from Python: json.dumps(s, ensure_ascii=False) for the same string.
    @Test func escapesLikePython() {
        var writer = JSONWriter()
        writer.writeString("a\"b\\c/\u{0}\u{1}\u{8}\t\n\u{C}\r\u{1F}\u{7F} é€😀")
        #expect(text(writer.bytes) == "\"a\\\"b\\\\c/\\u0000\\u0001\\b\\t\\n\\f\\r\\u001f\u{7F} é€😀\"")
    }

    @Test func escapesKeysToo() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("k\"\n")
        writer.writeNull()
        writer.writeKey(JSONWriter.EncodedKey("k\u{1}"))
        writer.writeNull()
        writer.endObject()
        #expect(text(writer.bytes) == #"{"k\"\n":null,"k\u0001":null}"#)
    }

    @Test func writesUTF8BytesAndRepairsIllFormedOnes() {
        var writer = JSONWriter()
        writer.beginArray()
        let good: [UInt8] = Array("é\"".utf8)
        let bad: [UInt8] = [0x61, 0xFF, 0x62, 0xED, 0xA0, 0x80]
        good.withUnsafeBufferPointer { writer.writeString(utf8: $0) }
        bad.withUnsafeBufferPointer { writer.writeString(utf8: $0) }
        writer.endArray()
        #expect(text(writer.bytes) == "[\"é\\\"\",\"a\u{FFFD}b\u{FFFD}\u{FFFD}\u{FFFD}\"]")
    }

    @Test func writesIntegersExactly() {
        var writer = JSONWriter()
        writer.beginArray()
        for value: Int64 in [0, 7, -7, 10, -10, 1234567890, Int64.max, Int64.min] { writer.writeNumber(value) }
        writer.endArray()
        #expect(text(writer.bytes) == "[0,7,-7,10,-10,1234567890,9223372036854775807,-9223372036854775808]")
    }

    /// Expected text from Python: json.dumps of the same doubles (repr is the shortest round trip).
    @Test func writesDoublesAsTheShortestRoundTrip() throws {
        var writer = JSONWriter()
        writer.beginArray()
        for value in [1.0, 1e-05, Double.leastNonzeroMagnitude, 1e16, 0.1, -0.0, 1.7976931348623157e308, 123456789.125] {
            try writer.writeNumber(value)
        }
        writer.endArray()
        let written = writer.bytes
        #expect(text(written) == "[1.0,1e-05,5e-324,1e+16,0.1,-0.0,1.7976931348623157e+308,123456789.125]")
        #expect(try JSONValue.parse(written).arrayValue?.compactMap(\.doubleValue)
            == [1.0, 1e-05, Double.leastNonzeroMagnitude, 1e16, 0.1, -0.0, 1.7976931348623157e308, 123456789.125])
    }

    @Test func handlesNonFiniteDoublesAsTheCallerChooses() throws {
        var writer = JSONWriter()
        #expect(throws: ODataError.self) { try writer.writeNumber(Double.infinity) }
        writer.beginArray()
        try writer.writeNumber(Double.nan, nonFinite: .writeNull)
        try writer.writeNumber(Double.infinity, nonFinite: .writeODataString)
        try writer.writeNumber(-Double.infinity, nonFinite: .writeODataString)
        try writer.writeNumber(Double.nan, nonFinite: .writeODataString)
        writer.endArray()
        #expect(text(writer.bytes) == #"[null,"INF","-INF","NaN"]"#)
    }

    @Test func writesNumberTextExactlyAndRejectsNonNumbers() throws {
        var writer = JSONWriter()
        writer.beginArray()
        try writer.writeNumber(text: "12345678901234567890.123456789")
        try writer.writeNumber(text: "-0")
        #expect(throws: ODataError.self) { try writer.writeNumber(text: "1.") }
        #expect(throws: ODataError.self) { try writer.writeNumber(text: "NaN") }
        #expect(throws: ODataError.self) { try writer.writeNumber(text: "1,2") }
        writer.endArray()
        #expect(text(writer.bytes) == "[12345678901234567890.123456789,-0]")
    }

    @Test func writesRawFragmentsAsValues() throws {
        var writer = JSONWriter()
        let entity: [UInt8] = Array(#"{"ID":1}"#.utf8)
        writer.beginObject()
        writer.writeKey("value")
        writer.beginArray()
        writer.writeRaw(entity)
        entity.withUnsafeBytes { writer.writeRaw($0) }
        writer.endArray()
        writer.endObject()
        #expect(text(try writer.finish()) == #"{"value":[{"ID":1},{"ID":1}]}"#)
    }

    @Test func finishRefusesUnbalancedOrEmptyOutput() throws {
        var empty = JSONWriter()
        #expect(throws: ODataError.self) { try empty.finish() }
        var open = JSONWriter()
        open.beginArray()
        #expect(throws: ODataError.self) { try open.finish() }
        open.endArray()
        #expect(try open.finish() == Array("[]".utf8))
        #expect(open.bytes.isEmpty)
    }

    @Test func appendsToAnExistingBuffer() {
        var writer = JSONWriter(appendingTo: Array("x=".utf8))
        writer.writeNumber(1)
        #expect(text(writer.bytes) == "x=1")
    }

    @Test func serialisesValuesThatParseBackEqual() throws {
        let value: JSONValue = ["a": [1, "two", nil, true, ["b": "\u{1}\"\\"]], "": [:], "c": []]
        let bytes = value.serialized()
        #expect(text(bytes) == #"{"a":[1,"two",null,true,{"b":"\u0001\"\\"}],"":{},"c":[]}"#)
        #expect(try JSONValue.parse(bytes) == value)
    }
}

@Suite struct JSONWriterRoundTripTests {
    /// Special characters at every position around the 8-byte fast paths of the writer and the reader.
    @Test func stringsRoundTripWithSpecialsAtEveryPosition() throws {
        let specials: [String] = ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "€", "😀", "\u{7F}", "/"]
        for length in 0..<20 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var text = String(repeating: "a", count: length)
                    if length > 0 {
                        let index = text.index(text.startIndex, offsetBy: position)
                        text.replaceSubrange(index...index, with: special)
                    }
                    var writer = JSONWriter()
                    writer.writeString(text)
                    let bytes = writer.bytes
                    #expect(try JSONValue.parse(bytes) == .string(text), "\(bytes)")
                    var fromBytes = JSONWriter()
                    Array(text.utf8).withUnsafeBufferPointer { fromBytes.writeString(utf8: $0) }
                    #expect(fromBytes.bytes == bytes)
                }
            }
        }
    }

    @Test func growsPastItsFirstCapacity() throws {
        var writer = JSONWriter(capacity: 16)
        writer.beginArray()
        let long = String(repeating: "x\"y\n", count: 50_000)
        for _ in 0..<3 { writer.writeString(long) }
        for i in 0..<10_000 { writer.writeNumber(i) }
        writer.endArray()
        let bytes = try writer.finish()
        let value = try JSONValue.parse(bytes)
        #expect(value[2]?.stringValue == long)
        #expect(value[10_002]?.int64Value == 9_999)
        #expect(value.arrayValue?.count == 10_003)
    }
}
