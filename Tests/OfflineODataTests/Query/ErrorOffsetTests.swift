import Testing
@_spi(Tool) @testable import OfflineOData

/// Malformed input fails with `.syntax` at the offset of the fault in the ORIGINAL text.
@Suite("Query: error offsets")
struct QueryErrorOffsetTests {
    let parser = ODataURLParser(dialect: .v4)

    @Test(arguments: [
        // unbalanced parentheses
        ("(Price gt 5", 11),
        ("Price gt 5)", 10),
        ("((a eq 1) or (b eq 2)", 21),
        ("contains(Name,'x'", 17),
        // bad literals
        ("Price gt 1.", 11),
        ("Price gt 12x", 9),
        ("Price gt 1.5x", 12),
        ("Born eq 2012-13-01", 14),
        // No hour 24: the number 24, then a colon that belongs to no case pair (issue 40).
        ("Start eq 24:00", 11),
        ("Name eq 'abc", 12),
        ("Id eq 01234567-89ab-cdef-0123-45678", 35),
        ("Span eq duration'P1Y'", 19),
        ("Data eq binary'%%'", 15),
        // unknown operators and missing whitespace
        ("Price gtx 5", 6),
        ("Price eq5", 6),
        ("Price  5", 7),
        ("Name eq 'a' xor Name eq 'b'", 12),
        // trailing garbage
        ("Price gt 5 6", 11),
        ("true)", 4),
        ("Name eq 'a''", 12),
        // leading whitespace and empty input
        (" true", 1),
        ("", 0),
    ])
    func filterErrors(_ input: String, _ offset: Int) {
        let error = parseError { () throws(ODataError) in try parser.parseFilter(input) }
        #expect(error?.code == .syntax, "\(input): \(String(describing: error))")
        #expect(error?.offset == offset, "\(input): \(String(describing: error))")
    }

    @Test func offsetsPointIntoTheUndecodedText() {
        // `%27` is three characters in what the user typed: the stray `x` is at 33, not 29.
        let error = parseError { () throws(ODataError) in try parser.parse("Products?$filter=Name eq %27a%27 x") }
        #expect(error?.offset == 33)
        let second = parseError { () throws(ODataError) in try parser.parse("Products?$filter=Price%20gt%20x%20y") }
        #expect(second?.offset == 34)
        let badPercent = parseError { () throws(ODataError) in try parser.parse("Products?$filter=Name eq 'a%2'") }
        #expect(badPercent?.offset == 27)
    }

    @Test func offsetsCountCharactersNotBytes() {
        let error = parseError { () throws(ODataError) in try parser.parseFilter("Name eq 'Ünïcode' x") }
        #expect(error?.offset == 18)
    }

    @Test func unsupportedFeaturesSayUnsupported() {
        let geo = parseError { () throws(ODataError) in try parser.parseFilter("geo.distance(A,B) lt 5") }
        #expect(geo?.code == .unsupported)
        #expect(geo?.offset == 0)
        let json = parseError { () throws(ODataError) in try ODataURLParser(dialect: .v2).parseFilter("Name eq [\"a\"]") }
        #expect(json?.code == .syntax)
        #expect(json?.offset == 8)
        let unterminated = parseError { () throws(ODataError) in try parser.parseFilter("Name in [\"a]") }
        #expect(unterminated?.offset == 12)
        let apply = parseError { () throws(ODataError) in try parser.parseQueryOptions("$apply=groupby((Name))") }
        #expect(apply?.code == .unsupported)
    }

    @Test func optionErrors() {
        let cases: [(String, Int)] = [
            ("$top=-1", 5),
            ("$top=1x", 6),
            ("$skip=", 6),
            ("$count", 6),
            ("$count=maybe", 7),
            ("$filter=true&$filter=false", 13),
            ("$frobnicate=1", 0),
            ("$filter =true", 7),
            ("$orderby=Name up", 14),
            ("$expand=Items($levels=0)", 22),
            ("$expand=Items($top=1;$bogus=2)", 21),
            ("$select=Name,", 13),
        ]
        for (input, offset) in cases {
            let error = parseError { () throws(ODataError) in try parser.parseQueryOptions(input) }
            #expect(error?.code == .syntax, "\(input)")
            #expect(error?.offset == offset, "\(input): \(String(describing: error))")
        }
    }

    @Test func pathErrors() {
        let cases: [(String, Int)] = [
            ("Products/$count/foo", 15),
            ("Products(1)/$ref/$count", 16),
            ("Products('a/b')", 11),
            ("Products(ID=wrong)", 12),
            ("Products(1", 10),
            ("Model.Products", 5),
            ("$count", 0),
            ("Products/$metadata", 9),
        ]
        for (input, offset) in cases {
            let error = parseError { () throws(ODataError) in try parser.parseResourcePath(input) }
            #expect(error?.code == .syntax, "\(input)")
            #expect(error?.offset == offset, "\(input): \(String(describing: error))")
        }
    }
}
