import Testing
@_spi(Tool) @testable import OfflineOData

/// Operator precedence and grouping, against the auth0 expected ASTs and against the spec's table.
@Suite("Query: precedence and grouping", .needsFixtures)
struct QueryPrecedenceTests {
    let parser = ODataURLParser(dialect: .v4)

    struct Auth0Case: CustomTestStringConvertible {
        var input: String
        var expected: JSONValue
        var testDescription: String { input }
    }

    static func auth0Cases() -> [Auth0Case] {
        guard let index = Fixtures.bytes("auth0-node-odata-parser/index.json") else { return [] }
        guard case .array(let cases)? = (try? JSONValue.parse(index))?["cases"] else { return [] }
        return cases.compactMap { entry in
            guard let file = entry["expected_file"]?.text, !file.hasPrefix("apply/"), let input = entry["input"]?.text,
                  let bytes = Fixtures.bytes("auth0-node-odata-parser/data/" + file) else { return nil }
            guard let expected = (try? JSONValue.parse(bytes))?["expected"]?["$filter"] else { return nil }
            return Auth0Case(input: input, expected: expected)
        }
    }

    @Test func auth0FixturesAreThere() {
        #expect(Self.auth0Cases().count == 9)
    }

    @Test(arguments: auth0Cases())
    func groupingMatchesAuth0(_ testCase: Auth0Case) throws {
        let options = try parser.parseQueryOptions(testCase.input)
        let filter = try #require(options.filter)
        #expect(ExpressionShape.of(filter) == ExpressionShape.of(auth0: testCase.expected))
    }

    /// Fully parenthesized form, to check associativity too (which the auth0 fixtures cannot).
    func grouped(_ expression: ExpressionSyntax) -> String {
        switch expression.kind {
        case .binary(let op, let left, let right): "(\(grouped(left)) \(op.rawValue) \(grouped(right)))"
        case .unary(let op, let operand): "(\(op.rawValue) \(grouped(operand)))"
        default: ExpressionShape.of(expression)
        }
    }

    @Test(arguments: [
        ("a or b and c", "(a or (b and c))"),
        ("a and b or c", "((a and b) or c)"),
        ("a or b or c", "((a or b) or c)"),
        ("a eq 1 and b ne 2", "((a eq 1) and (b ne 2))"),
        ("a add b mul c", "(a add (b mul c))"),
        ("a sub b sub c", "((a sub b) sub c)"),
        ("a sub b add c", "((a sub b) add c)"),
        ("a div b mod c mul d", "(((a div b) mod c) mul d)"),
        ("a divby 2 eq 2.5", "((a divby 2) eq 2.5)"),
        ("a add 1 gt b", "((a add 1) gt b)"),
        ("a lt b eq true", "((a lt b) eq true)"),
        ("not a and b", "((not a) and b)"),
        ("not a eq b", "((not a) eq b)"),
        ("-a add b", "((negate a) add b)"),
        ("-a mul -b", "((negate a) mul (negate b))"),
        ("not style has Sales.Pattern'Yellow'", "(not (style has Sales.Pattern'Yellow'))"),
        ("a in ('x','y') and b", "((a in (x,y)) and b)"),
        ("(a or b) and c", "((a or b) and c)"),
        ("a add (b sub c)", "(a add (b sub c))"),
        ("Name EQ 'Milk' AND Price LT 2.55", "((Name eq Milk) and (Price lt 2.55))"),
    ])
    func specPrecedence(_ input: String, _ expected: String) throws {
        #expect(grouped(try parser.parseFilter(input)) == expected)
    }
}
