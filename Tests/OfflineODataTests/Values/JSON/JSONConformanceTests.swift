import Testing
@_spi(Tool) @testable import OfflineOData

/// One document of the RFC 8259 table: valid with its value, or invalid with the error's offset
/// and a fragment of its message.
struct JSONCase: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let value: JSONValue?
    let failOffset: Int?
    let messageFragment: String

    static func valid(_ name: String, _ text: String, _ value: JSONValue) -> JSONCase {
        JSONCase(name: name, input: Array(text.utf8), value: value, failOffset: nil, messageFragment: "")
    }

    static func valid(_ name: String, bytes: [UInt8], _ value: JSONValue) -> JSONCase {
        JSONCase(name: name, input: bytes, value: value, failOffset: nil, messageFragment: "")
    }

    static func invalid(_ name: String, _ text: String, at offset: Int, _ fragment: String) -> JSONCase {
        JSONCase(name: name, input: Array(text.utf8), value: nil, failOffset: offset, messageFragment: fragment)
    }

    static func invalid(_ name: String, bytes: [UInt8], at offset: Int, _ fragment: String) -> JSONCase {
        JSONCase(name: name, input: bytes, value: nil, failOffset: offset, messageFragment: fragment)
    }

    var testDescription: String { name }
}

private let quote = UInt8(ascii: "\"")
private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

let validJSONCases: [JSONCase] = [
    .valid("zero", "0", .number(JSONNumber(validated: "0"))),
    .valid("negative zero", "-0", .number(JSONNumber(validated: "-0"))),
    .valid("integer", "123", 123),
    .valid("negative integer", "-123", -123),
    .valid("fraction", "1.5", .number(JSONNumber(validated: "1.5"))),
    .valid("fraction with exponent", "-1.5e10", .number(JSONNumber(validated: "-1.5e10"))),
    .valid("exponent beyond double", "1E400", .number(JSONNumber(validated: "1E400"))),
    .valid("negative exponent", "1e-7", .number(JSONNumber(validated: "1e-7"))),
    .valid("exponent with plus", "1E+2", .number(JSONNumber(validated: "1E+2"))),
    .valid("zero fraction", "0.0", .number(JSONNumber(validated: "0.0"))),
    .valid("string", "\"abc\"", "abc"),
    .valid("empty string", "\"\"", ""),
    .valid("true", "true", true),
    .valid("false", "false", false),
    .valid("null", "null", nil),
    .valid("empty array", "[]", []),
    .valid("empty object", "{}", [:]),
    .valid("all whitespace kinds", " \t\r\n[ 1 ,\t2\r\n]\n", [1, 2]),
    .valid("object with array", #"{"a":1,"b":[true,null]}"#, ["a": 1, "b": [true, nil]]),
    .valid("short escapes", #""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
    .valid("unicode escape", #""\u0041""#, "A"),
    .valid("two-byte unicode escape", #""\u00e9""#, "é"),
    .valid("surrogate pair", #""\ud83d\ude00""#, "😀"),
    .valid("surrogate pair upper-case hex", #""\uD834\uDD1E""#, "𝄞"),
    .valid("raw UTF-8", "\"é€😀\"", "é€😀"),
    .valid("escaped NUL", #""\u0000""#, "\u{0}"),
    .valid("byte order mark", bytes: bom + Array("{}".utf8), [:]),
    .valid("nested arrays", "[[[]]]", [[[]]]),
    .valid("empty key", #"{"":""}"#, ["": ""]),
    .valid("raw line separator", "\"\u{2028}\"", "\u{2028}"),
    .valid("mixed nesting", #"[1,[2,{"a":[3]}]]"#, [1, [2, ["a": [3]]]]),
    .valid("long string with escapes", #""abcdefghij\nklmnopqrstuvwxyz\u00e9ABCDEFGH\"""#, "abcdefghij\nklmnopqrstuvwxyzéABCDEFGH\""),
    .valid("DEL is not a control character", bytes: [quote, 0x7F, quote], "\u{7F}"),
    .valid("duplicate keys kept", #"{"a":1,"a":2}"#, ["a": 1, "a": 2]),
    .valid("escaped key", #"{"a\u0062":1}"#, ["ab": 1]),
]

let invalidJSONCases: [JSONCase] = [
    .invalid("empty input", "", at: 0, "expected a JSON value"),
    .invalid("only whitespace", "   ", at: 3, "found end of input"),
    .invalid("only a byte order mark", bytes: bom, at: 3, "expected a JSON value"),
    .invalid("byte order mark inside", bytes: Array("[".utf8) + bom + Array("]".utf8), at: 1, "byte 0xEF"),
    .invalid("UTF-16 byte order mark", bytes: [0xFE, 0xFF, 0x00, 0x31], at: 0, "byte 0xFE"),
    .invalid("trailing comma in array", "[1,]", at: 3, "after ',' in an array"),
    .invalid("trailing comma in long array", "[1,2,3,]", at: 7, "after ',' in an array"),
    .invalid("leading comma in array", "[,1]", at: 1, "or ']' after '['"),
    .invalid("double comma in array", "[1,,2]", at: 3, "expected a JSON value"),
    .invalid("missing comma in array", "[1 2]", at: 3, "expected ',' or ']' after array element"),
    .invalid("missing comma between literals", "[true false]", at: 6, "expected ',' or ']'"),
    .invalid("missing colon", #"{"a" 1}"#, at: 5, "expected ':' after object key"),
    .invalid("double colon", #"{"a"::1}"#, at: 5, "expected a JSON value after ':'"),
    .invalid("trailing comma in object", #"{"a":1,}"#, at: 7, "member name"),
    .invalid("double comma in object", #"{"a":1,,}"#, at: 7, "member name"),
    .invalid("missing comma in object", #"{"a":1 "b":2}"#, at: 7, "expected ',' or '}' after object member"),
    .invalid("comma as first member", "{,}", at: 1, "or '}' after '{'"),
    .invalid("number as key", "{1:2}", at: 1, "member name in quotes"),
    .invalid("single-quoted key", "{'a':1}", at: 1, "member name in quotes"),
    .invalid("unclosed array", "[", at: 1, "found end of input"),
    .invalid("unclosed array after element", "[1", at: 2, "expected ',' or ']'"),
    .invalid("unclosed object after member", #"{"a":1"#, at: 6, "expected ',' or '}'"),
    .invalid("missing member value", #"{"a":"#, at: 5, "after ':'"),
    .invalid("missing colon at end", #"{"a""#, at: 4, "expected ':'"),
    .invalid("closing bracket alone", "]", at: 0, "expected a JSON value"),
    .invalid("closing brace alone", "}", at: 0, "expected a JSON value"),
    .invalid("extra closing bracket", "[1]]", at: 3, "after the JSON value"),
    .invalid("extra closing brace", #"{"a":1}}"#, at: 7, "after the JSON value"),
    .invalid("garbage after object", "{}x", at: 2, "after the JSON value"),
    .invalid("two top-level values", "1 2", at: 2, "after the JSON value"),
    .invalid("NUL after value", bytes: Array("[1]".utf8) + [0], at: 3, "byte 0x00"),
    .invalid("NUL inside array", bytes: Array("[1".utf8) + [0] + Array("]".utf8), at: 2, "byte 0x00"),
    .invalid("comment", "//x\n1", at: 0, "expected a JSON value"),
    .invalid("lone high surrogate", #""\ud800""#, at: 1, "lone high surrogate"),
    .invalid("lone low surrogate", #""\udc00""#, at: 1, "lone low surrogate"),
    .invalid("high surrogate then BMP escape", #""\ud800\u0041""#, at: 1, "lone high surrogate"),
    .invalid("high surrogate then text", #""\ud800x""#, at: 1, "lone high surrogate"),
    .invalid("two high surrogates", #""\uD800\uD800""#, at: 1, "lone high surrogate"),
    .invalid("leading zero", "01", at: 0, "leading zeros"),
    .invalid("negative leading zero", "-01", at: 1, "leading zeros"),
    .invalid("decimal point without digits", "1.", at: 2, "after the decimal point"),
    .invalid("decimal point before exponent", "1.e5", at: 2, "after the decimal point"),
    .invalid("minus alone", "-", at: 1, "after '-'"),
    .invalid("minus before letter", "-a", at: 1, "after '-'"),
    .invalid("minus before fraction", "-.5", at: 1, "after '-'"),
    .invalid("exponent without digits", "1e", at: 2, "in the exponent"),
    .invalid("exponent sign without digits", "1e+", at: 3, "in the exponent"),
    .invalid("fraction then empty exponent", "1.5e", at: 4, "in the exponent"),
    .invalid("leading decimal point", ".5", at: 0, "expected a JSON value"),
    .invalid("leading plus", "+1", at: 0, "expected a JSON value"),
    .invalid("hex number", "0x10", at: 1, "after the JSON value"),
    .invalid("fraction after exponent", "1e5.0", at: 3, "after the JSON value"),
    .invalid("NaN", "NaN", at: 0, "expected a JSON value"),
    .invalid("Infinity", "Infinity", at: 0, "expected a JSON value"),
    .invalid("negative Infinity", "-Infinity", at: 1, "after '-'"),
    .invalid("short unicode escape", #""\u00""#, at: 5, "four hex digits"),
    .invalid("non-hex unicode escape", #""\u00G0""#, at: 5, "four hex digits"),
    .invalid("unicode escape cut by the end", #""\u12"#, at: 5, "end of input"),
    .invalid("unknown escape", #""\x""#, at: 1, "invalid escape"),
    .invalid("escape cut by the end", #""\"#, at: 2, "end of input inside a string escape"),
    .invalid("unterminated string", #""abc"#, at: 4, "end of input inside a string"),
    .invalid("raw tab in string", "\"a\tb\"", at: 2, "U+0009"),
    .invalid("raw newline in string", "\"a\nb\"", at: 2, "U+000A"),
    .invalid("raw NUL in string", bytes: [quote, 0, quote], at: 1, "U+0000"),
    .invalid("raw NUL at the end of a string", bytes: [quote, UInt8(ascii: "a"), 0], at: 2, "U+0000"),
    .invalid("invalid UTF-8 byte", bytes: [quote, 0xFF, quote], at: 1, "invalid UTF-8"),
    .invalid("overlong UTF-8", bytes: [quote, 0xC0, 0x80, quote], at: 1, "invalid UTF-8"),
    .invalid("UTF-8 encoded surrogate", bytes: [quote, 0xED, 0xA0, 0x80, quote], at: 1, "invalid UTF-8"),
    .invalid("truncated UTF-8", bytes: [quote, 0xE2, 0x82, quote], at: 1, "invalid UTF-8"),
    .invalid("UTF-8 above U+10FFFF", bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote], at: 1, "invalid UTF-8"),
    .invalid("stray continuation byte", bytes: [quote, 0x80, quote], at: 1, "invalid UTF-8"),
    .invalid("UTF-8 cut by the end of input", bytes: [quote, 0xE2, 0x82], at: 1, "invalid UTF-8"),
    .invalid("non-ASCII outside a string", "é", at: 0, "byte 0xC3"),
    .invalid("truncated true", "tru", at: 3, "expected 'true'"),
    .invalid("misspelt true", "trux", at: 3, "expected 'true'"),
    .invalid("truncated null", "nul", at: 3, "expected 'null'"),
    .invalid("truncated false", "fals", at: 4, "expected 'false'"),
    .invalid("capitalised True", "True", at: 0, "expected a JSON value"),
    .invalid("literal with extra letter", "nulll", at: 4, "after the JSON value"),
    .invalid("100000 opening brackets", String(repeating: "[", count: 100_000), at: 512, "deeper than the limit of 512"),
    .invalid("513 levels", String(repeating: "[", count: 513) + String(repeating: "]", count: 513), at: 512, "deeper"),
    .invalid("513 levels of objects", String(repeating: #"{"a":"#, count: 513) + "1" + String(repeating: "}", count: 513), at: 2560, "deeper"),
]

@Suite struct JSONConformanceTests {
    @Test(arguments: validJSONCases)
    func acceptsValidDocument(_ testCase: JSONCase) throws {
        let value = try JSONValue.parse(testCase.input)
        #expect(value == testCase.value)
    }

    @Test(arguments: invalidJSONCases)
    func rejectsInvalidDocumentAtTheRightOffset(_ testCase: JSONCase) {
        do {
            let value = try JSONValue.parse(testCase.input)
            Issue.record("accepted \(testCase.name) as \(value)")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.offset == testCase.failOffset, "\(error)")
            #expect(error.message.contains(testCase.messageFragment), "\(error)")
        }
    }

    /// The events API must reject exactly what the tree API rejects, at the same offset.
    @Test(arguments: invalidJSONCases)
    func eventsRejectInvalidDocumentAtTheSameOffset(_ testCase: JSONCase) {
        var reader = JSONReader(bytes: testCase.input)
        do {
            while try reader.next() != .end {}
            Issue.record("events accepted \(testCase.name)")
        } catch {
            #expect(error.offset == testCase.failOffset)
        }
    }

    @Test func acceptsNestingAtExactlyTheLimit() throws {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        _ = try JSONValue.parse(text)
    }

    @Test func honoursAConfiguredDepthLimit() {
        #expect(throws: ODataError.self) { try JSONValue.parse("[[[1]]]", options: .init(maximumDepth: 2)) }
    }

    /// The reader keeps its own stack, so even absurd depths are no danger to the call stack.
    @Test func readsVeryDeepNestingAsEventsWithoutRecursion() throws {
        let depth = 100_000
        var reader = JSONReader(text: String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
                                options: .init(maximumDepth: depth))
        var events = 0
        while try reader.next() != .end { events += 1 }
        #expect(events == 2 * depth)
    }

    @Test func errorDescriptionNamesTheOffset() {
        do {
            _ = try JSONValue.parse(#"{"a":1 "b":2}"#)
        } catch {
            #expect(error.description == "expected ',' or '}' after object member, found '\"' (at offset 7)")
        }
    }

    @Test func repeatsTheFirstErrorAfterFailing() throws {
        var reader = JSONReader(text: "[1 2]")
        #expect(try reader.next() == .arrayStart)
        _ = try reader.next()
        #expect(throws: ODataError.self) { try reader.next() }
        do {
            _ = try reader.next()
        } catch {
            #expect(error.offset == 3)
        }
    }
}
