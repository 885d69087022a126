import Testing
@_spi(Tool) @testable import OfflineOData

/// Random and mutated inputs through every entry point: each must return a tree or an
/// `ODataError`, never trap. (A deterministic generator keeps failures reproducible.)
@Suite("Query: robustness")
struct QueryRobustnessTests {
    /// A small xorshift generator: the same sequence on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    }

    static let pieces = [
        "(", ")", "'", "''", "/", "$", "@", "=", "&", "?", "#", ";", ",", ":", "*", "-", "+", ".", "%", "%2", "%27",
        "%28", "%2F", "\"", "[", "]", "{", "}", " ", "\t", "é", "eq", " and ", " or ", "not ", " add ", " in ", " has ",
        "any(", "all(", "x:", "$filter", "$expand", "$select", "$count", "$ref", "$value", "$it", "$root", "$search",
        "$levels", "max", "Name", "Model.Type", "geo.distance(", "contains(", "cast(", "substringof(", "1", "-1",
        "1.5", "1e5", "1.5M", "99999999999999999999", "2012-09-03", "2012-09-03T10:00Z", "13:45", "INF", "NaN",
        "01234567-89ab-cdef-0123-456789abcdef", "duration'P1D'", "binary'Zm9v'", "X'0A'", "datetime'2012-09-03T00:00'",
        "Sales.Pattern'Yellow'", "null", "true", "AND", "OR", "NOT",
    ]

    @Test func randomInputsNeverTrap() {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        let parsers = [ODataURLParser(dialect: .v4), ODataURLParser(dialect: .v2)]
        var outcomes = 0
        for _ in 0..<2_000 {
            var input = ""
            for _ in 0..<(1 + generator.below(14)) { input += Self.pieces[generator.below(Self.pieces.count)] }
            for parser in parsers {
                let results: [ODataError?] = [
                    parseError { () throws(ODataError) in try parser.parse(input) },
                    parseError { () throws(ODataError) in try parser.parse("Products?$filter=" + input) },
                    parseError { () throws(ODataError) in try parser.parseFilter(input) },
                    parseError { () throws(ODataError) in try parser.parseQueryOptions("$expand=" + input) },
                    parseError { () throws(ODataError) in try parser.parseSelect(input) },
                    parseError { () throws(ODataError) in try parser.parseOrderBy(input) },
                    parseError { () throws(ODataError) in try parser.parseSearch(input) },
                    parseError { () throws(ODataError) in try parser.parseLiteral(input) },
                    parseError { () throws(ODataError) in try parser.parseResourcePath(input) },
                ]
                for error in results {
                    outcomes += 1
                    if let error, let offset = error.offset {
                        // Offsets stay within the text (+ the prefix added above).
                        #expect(offset >= 0 && offset <= input.unicodeScalars.count + 17, "\(input): \(error)")
                    }
                }
            }
        }
        #expect(outcomes == 2_000 * 2 * 9)
    }
}
