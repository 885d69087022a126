import Testing
@_spi(Tool) @testable import OfflineOData

/// The V2 dialect: its own literals, functions and options, and clear rejections both ways.
@Suite("Query: V2 dialect")
struct QueryV2DialectTests {
    let v2 = ODataURLParser(dialect: .v2)
    let v4 = ODataURLParser(dialect: .v4)

    @Test func substringofIsAV2Function() throws {
        let filter = try v2.parseFilter("substringof('Lufthansa',Name) eq true")
        guard case .binary(.eq, let call, _) = filter.kind, case .function(.substringof, let arguments) = call.kind else {
            Issue.record("unexpected \(filter.kind)")
            return
        }
        #expect(arguments.count == 2)
        let error = parseError { () throws(ODataError) in try v4.parseFilter("substringof('a',Name)") }
        #expect(error?.code == .syntax)
        #expect(error?.offset == 0)
        #expect(error?.message.contains("V2") == true)
    }

    @Test(arguments: [
        ("datetime'2013-09-16T00:00'", LiteralSyntax.Kind.dateTime("2013-09-16T00:00")),
        ("datetime'2013-09-16T00:00:01.5'", .dateTime("2013-09-16T00:00:01.5")),
        ("datetimeoffset'2013-09-16T00:00:00Z'", .dateTimeOffset("2013-09-16T00:00:00Z")),
        ("time'PT13H20M'", .duration("PT13H20M")),
        ("guid'01234567-89ab-cdef-0123-456789abcdef'", .guid("01234567-89ab-cdef-0123-456789abcdef")),
        ("binary'0A1b'", .binary([0x0A, 0x1B])),
        ("X'0A1b'", .binary([0x0A, 0x1B])),
        ("1.5M", .decimal("1.5")),
        ("15m", .decimal("15")),
        ("123L", .int64(123)),
        ("1.5d", .double(1.5)),
        ("2.5f", .single(2.5)),
        ("42", .integer(42)),
    ])
    func v2Literals(_ input: String, _ expected: LiteralSyntax.Kind) throws {
        #expect(try v2.parseLiteral(input).kind == expected)
    }

    @Test(arguments: ["datetime'2013-09-16T00:00'", "datetimeoffset'2013-09-16T00:00:00Z'", "time'PT13H'",
                      "guid'01234567-89ab-cdef-0123-456789abcdef'", "X'0A'", "1.5M", "123L", "1.5d", "2.5f"])
    func v4RejectsV2Literals(_ input: String) {
        let error = parseError { () throws(ODataError) in try v4.parseLiteral(input) }
        #expect(error?.code == .syntax)
        #expect(error?.message.contains("V2") == true, "\(String(describing: error))")
    }

    @Test func v2Options() throws {
        let options = try v2.parseQueryOptions("$filter=Price gt 1.5M&$inlinecount=allpages&$top=10&$skip=5&$expand=Orders/Items,Customer&$orderby=Name desc")
        #expect(options.inlineCount == .allPages)
        #expect(options.top == 10)
        #expect(options.skip == 5)
        #expect(options.expand?.count == 2)
        #expect(options.expand?.first?.path.count == 2)
        #expect(options.orderBy?.first?.descending == true)
        #expect(try v2.parseQueryOptions("$inlinecount=none").inlineCount == QueryOptionsSyntax.InlineCount.none)
        #expect(parseError { () throws(ODataError) in try v2.parseQueryOptions("$inlinecount=some") }?.offset == 13)
    }

    @Test func v2Links() throws {
        let path = try v2.parseResourcePath("Categories(1)/$links/Products")
        #expect(path.segments.map(\.kind) == [.name("Categories"), .links, .name("Products")])
        let error = parseError { () throws(ODataError) in try v4.parseResourcePath("Categories(1)/$links/Products") }
        #expect(error?.offset == 14)
        #expect(error?.message.contains("V2") == true)
        #expect(parseError { () throws(ODataError) in try v2.parseResourcePath("Categories(1)/$links") }?.offset == 20)
        let refError = parseError { () throws(ODataError) in try v2.parseResourcePath("Categories(1)/Products/$ref") }
        #expect(refError?.offset == 23)
    }

    @Test func v2RejectsV4Syntax() {
        let cases: [(String, Int, () throws(ODataError) -> Void)] = [
            ("in", 5, { () throws(ODataError) in _ = try v2.parseFilter("Name in ('a','b')") }),
            ("lambda", 7, { () throws(ODataError) in _ = try v2.parseFilter("Orders/any(o:o/Amount gt 1)") }),
            ("$count", 0, { () throws(ODataError) in _ = try v2.parseQueryOptions("$count=true") }),
            ("bare date", 9, { () throws(ODataError) in _ = try v2.parseFilter("Birth gt 2012-09-03") }),
            ("bare time", 9, { () throws(ODataError) in _ = try v2.parseFilter("Start gt 13:52") }),
            ("duration", 8, { () throws(ODataError) in _ = try v2.parseFilter("Span eq duration'P1D'") }),
            ("contains", 0, { () throws(ODataError) in _ = try v2.parseFilter("contains(Name,'x')") }),
        ]
        for (what, offset, body) in cases {
            let error = parseError(body)
            #expect(error?.code == .syntax, "\(what)")
            #expect(error?.offset == offset, "\(what): \(String(describing: error))")
        }
    }

    @Test func v4RejectsV2Options() {
        let error = parseError { () throws(ODataError) in try v4.parseQueryOptions("$top=1&$inlinecount=allpages") }
        #expect(error?.offset == 7)
        #expect(error?.message.contains("$count=true") == true)
    }

    @Test func seedRequestsParse() throws {
        let request = try v2.parse("TravelagencyCollection?$filter=country eq 'US'")
        #expect(request.path.segments.first?.kind == .name("TravelagencyCollection"))
        let flights = try v2.parse("FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'")
        guard case .binary(.gt, _, let right)? = flights.options.filter?.kind, case .literal(let literal) = right.kind else {
            Issue.record("unexpected tree")
            return
        }
        #expect(literal.kind == .dateTime("2013-09-16T00:00"))
        #expect(literal.range.offset == 35)
    }
}
