import Testing
@_spi(Tool) @testable import OfflineOData

/// Literal kinds against the jaystack primitive cases: the kind must admit the expected EDM type.
@Suite("Query: literal kinds", .needsFixtures)
struct QueryLiteralKindTests {
    let parser = ODataURLParser(dialect: .v4)

    struct PrimitiveCase: CustomTestStringConvertible {
        var rule: String
        var input: String
        var expectedType: String
        var testDescription: String { "\(rule): \(input) -> \(expectedType)" }
    }

    /// Positive cases with an expected type. Payload-only forms (bare durations, binary without
    /// prefix, enum members) are not URL literals and are left out.
    static func primitiveCases() -> [PrimitiveCase] {
        guard let bytes = Fixtures.bytes("jaystack-odata-v4-parser/primitive-cases.json") else { return [] }
        guard case .array(let items)? = (try? JSONValue.parse(bytes)) else { return [] }
        return items.compactMap { item in
            guard item["-FailAt"] == nil, let rule = item["-Rule"]?.text, let input = item["Input"]?.text,
                  let expected = item["result"]?["value"]?.text else { return nil }
            if ["durationValue", "binaryValue", "booleanValue"].contains(rule) { return nil }
            if rule == "primitiveValue" && (expected == "Edm.Binary" || expected == "Edm.???" || expected.hasPrefix("Edm.Geo")) { return nil }
            return PrimitiveCase(rule: rule, input: input, expectedType: expected)
        }
    }

    @Test func primitiveCasesAreThere() {
        #expect(Self.primitiveCases().count > 50)
    }

    @Test(arguments: primitiveCases())
    func literalKindAdmitsExpectedType(_ testCase: PrimitiveCase) throws {
        if testCase.expectedType.hasPrefix("Edm.Geo") {
            #expect(parseError { () throws(ODataError) in try parser.parseLiteral(testCase.input) }?.code == .unsupported)
            return
        }
        let literal = try parser.parseLiteral(testCase.input)
        if testCase.expectedType == "null" {
            #expect(literal.kind == .null)
        } else {
            #expect(literal.compatibleEdmTypeNames.contains(testCase.expectedType), "kind \(literal.kind)")
        }
    }

    @Test func defaultTypesFollowTheSpec() throws {
        #expect(try parser.parseLiteral("42").defaultEdmTypeName == "Edm.Int32")
        #expect(try parser.parseLiteral("2147483648").defaultEdmTypeName == "Edm.Int64")
        #expect(try parser.parseLiteral("-2147483648").defaultEdmTypeName == "Edm.Int32")
        #expect(try parser.parseLiteral("9223372036854775807").kind == .integer(Int64.max))
        #expect(try parser.parseLiteral("-9223372036854775808").kind == .integer(Int64.min))
        // Beyond Int64 an integer is a decimalValue in the ABNF, kept exact.
        #expect(try parser.parseLiteral("9223372036854775808").kind == .decimal("9223372036854775808"))
        #expect(try parser.parseLiteral("3.14").kind == .decimal("3.14"))
        #expect(try parser.parseLiteral("+3.10").kind == .decimal("3.10"))
        #expect(try parser.parseLiteral("1e-3").kind == .double(0.001))
        #expect(try parser.parseLiteral("-0.314e1").kind == .double(-3.14))
        #expect(try parser.parseLiteral("INF").kind == .double(.infinity))
        #expect(try parser.parseLiteral("-INF").kind == .double(-.infinity))
        let nan = try parser.parseLiteral("NaN")
        if case .double(let value) = nan.kind { #expect(value.isNaN) } else { Issue.record("NaN is \(nan.kind)") }
        #expect(try parser.parseLiteral("'O''Neil'").kind == .string("O'Neil"))
        #expect(try parser.parseLiteral("%27O%27%27Neil%27").kind == .string("O'Neil"))
        #expect(try parser.parseLiteral("true").kind == .boolean(true))
        #expect(try parser.parseLiteral("null").kind == .null)
        #expect(try parser.parseLiteral("2012-09-03").kind == .date("2012-09-03"))
        #expect(try parser.parseLiteral("2012-09-03T13:52Z").kind == .dateTimeOffset("2012-09-03T13:52Z"))
        #expect(try parser.parseLiteral("13:52:10.5").kind == .timeOfDay("13:52:10.5"))
        #expect(try parser.parseLiteral("duration'P1DT2H'").kind == .duration("P1DT2H"))
        #expect(try parser.parseLiteral("01234567-89ab-cdef-0123-456789abcdef").kind == .guid("01234567-89ab-cdef-0123-456789abcdef"))
        #expect(try parser.parseLiteral("binary'Zm9vYg'").kind == .binary(Array("foob".utf8)))
        #expect(try parser.parseLiteral("Sales.Pattern'Yellow,Solid'").kind == .enumeration(typeName: "Sales.Pattern", value: "Yellow,Solid"))
    }

    @Test func literalsKeepRawTextAndOriginalRange() throws {
        let literal = try parser.parseLiteral("%27a%20b%27")
        #expect(literal.text == "'a b'")
        #expect(literal.range == SourceRange(offset: 0, length: 11))
    }
}
