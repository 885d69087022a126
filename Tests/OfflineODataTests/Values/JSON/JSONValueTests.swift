import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct JSONValueTests {
    @Test func keepsNumbersAsExactText() throws {
        for text in ["12345678901234567890.123456789", "-0", "1E400", "0.1000", "-1.50e-0007", "99999999999999999999"] {
            let value = try JSONValue.parse(text)
            #expect(value.numberValue?.text == text)
            #expect(value.serialized() == Array(text.utf8))
        }
    }

    @Test func convertsNumbersOnlyWhenAsked() throws {
        #expect(try JSONValue.parse("9223372036854775807").int64Value == Int64.max)
        #expect(try JSONValue.parse("-9223372036854775808").int64Value == Int64.min)
        #expect(try JSONValue.parse("9223372036854775808").int64Value == nil)
        #expect(try JSONValue.parse("-9223372036854775809").int64Value == nil)
        #expect(try JSONValue.parse("1.0").int64Value == nil)
        #expect(try JSONValue.parse("1e2").int64Value == nil)
        #expect(try JSONValue.parse("-0").int64Value == 0)
        #expect(try JSONValue.parse("1E400").doubleValue == .infinity)
        #expect(try JSONValue.parse("0.1").doubleValue == 0.1)
        #expect(try JSONValue.parse("\"12\"").int64Value == nil)
    }

    @Test func jsonNumberValidatesText() {
        #expect(JSONNumber("1.5e3")?.text == "1.5e3")
        #expect(JSONNumber("01") == nil)
        #expect(JSONNumber("1 ") == nil)
        #expect(JSONNumber("") == nil)
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(0.1)?.text == "0.1")
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber("1.0") != JSONNumber("1"))
        #expect(JSONNumber("1e5")?.isInteger == false)
        #expect(JSONNumber("15")?.isInteger == true)
    }

    @Test func offersTypedAccessors() throws {
        let value = try JSONValue.parse(#"{"d":{"results":[{"ID":7,"Name":"x","Flag":true,"Gone":null,"Rate":2.5}]}}"#)
        let first = value["d"]?["results"]?[0]
        #expect(first?["ID"]?.int64Value == 7)
        #expect(first?["Name"]?.stringValue == "x")
        #expect(first?["Flag"]?.boolValue == true)
        #expect(first?["Gone"]?.isNull == true)
        #expect(first?["Rate"]?.doubleValue == 2.5)
        #expect(first?["Missing"] == nil)
        #expect(value["d"]?["results"]?[1] == nil)
        #expect(value["d"]?["results"]?[-1] == nil)
        #expect(value[0] == nil)
        #expect(value["d"]?["results"]?.arrayValue?.count == 1)
        #expect(first?.objectMembers?.map(\.key) == ["ID", "Name", "Flag", "Gone", "Rate"])
        #expect(first?["Name"]?.int64Value == nil)
    }

    /// Policy: every member is kept in order; lookup by key answers the last one.
    @Test func duplicateKeysAreKeptAndLookupReturnsTheLast() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectMembers?.map(\.key) == ["a", "b", "a"])
        #expect(value["a"] == 3)
        #expect(value.serialized() == Array(#"{"a":1,"b":2,"a":3}"#.utf8))
    }

    @Test func equalityIsStructuralAndOrdered() {
        let a: JSONValue = ["x": 1, "y": [true, nil, "s"]]
        #expect(a == ["x": 1, "y": [true, nil, "s"]])
        #expect(a != ["y": [true, nil, "s"], "x": 1])
        #expect(JSONValue.number(JSONNumber(validated: "1.0")) != 1)
    }
}
