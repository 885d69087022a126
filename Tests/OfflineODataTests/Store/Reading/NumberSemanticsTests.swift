import Testing
@_spi(Tool) @testable import OfflineOData

/// Numbers, patterns and literals as OData 4.01 says (issue 40), read from the reader tests'
/// sample store with four more agencies whose Score is INF (9), -INF (10), NaN (11) and the
/// largest double (12). Each expectation is worked out by hand from the URL Conventions' words
/// (odatapy has no NaN, INF, divby or case to compare with); `Tests/sync/test_query_language.py`
/// compares the rest with odatapy.
@Suite struct NumberSemanticsTests {
    let store: ReadTestStore
    /// The sample's agencies with a Score (1, 2, 4, 5) and the four added here.
    static let scored: [Int64] = [1, 2, 4, 5, 9, 10, 11, 12]
    static let all: [Int64] = [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]

    init() throws {
        store = try ReadTestStore.sample()
        for (id, score) in [(9, Double.infinity), (10, -Double.infinity), (11, Double.nan), (12, Double.greatestFiniteMagnitude)] {
            try store.insert("Agencies", [("ID", .integer(Int64(id))), ("Name", .text("S\(id)")), ("Score", .real(score))])
        }
    }

    func ids(_ filter: String, sourceLocation: SourceLocation = #_sourceLocation) -> [Int64] {
        store.agencyIDs(filter: urlEncoded(filter), sourceLocation: sourceLocation)
    }

    func failure(_ filter: String) -> ODataError? { store.error("Agencies?$filter=" + urlEncoded(filter)) }

    // 1. "positive div zero returns INF, negative div zero returns -INF, and zero div zero returns NaN".
    @Test func floatingPointDivisionByZeroIsINFOrNaN() {
        #expect(ids("Score div 0 gt 1.0") == [1, 4, 5, 9, 12])
        #expect(ids("Score div 0 lt -1.0") == [2, 10])
        #expect(ids("Score div 0 eq INF") == [1, 4, 5, 9, 12])
        #expect(ids("Score divby 0 eq -INF") == [2, 10])
        // x - x is 0 for a finite x and NaN for an infinite or NaN one: every division is NaN.
        #expect(ids("cast((Score sub Score) div 0,Edm.String) eq 'NaN'") == Self.scored)
        #expect(ids("Score mul 0 eq 0") == [1, 2, 4, 5, 12])
        #expect(ids("Score add Score eq INF") == [9, 12])
    }

    // 1. divby "does not fail for divby zero, returning -INF, INF, or NaN", integers and decimals too.
    @Test func divbyNeverFailsForZero() {
        #expect(ids("cast(Rating divby 0,Edm.String) eq 'INF'") == [1, 2, 4, 5, 6])
        #expect(ids("Rating divby 0 gt 1000000") == [1, 2, 4, 5, 6])
        #expect(ids("Revenue divby 0 lt -1000") == [5])
        #expect(ids("Revenue divby 0 gt 1000") == [1, 2, 4, 6])
        // Zero divby zero is NaN, which equals nothing, not even itself.
        #expect(ids("(Rating sub Rating) divby 0 eq (Rating sub Rating) divby 0") == [3, 8, 9, 10, 11, 12])
        #expect(ids("Rating divby 2 eq 1.5") == [2])
        // Promoted to Double, a decimal INF stays INF.
        #expect(ids("Rating divby 0 gt Score") == [1, 2, 4, 5])
        #expect(ids("-(Rating divby 0) lt Score") == [1, 2, 4, 5])
        // div of integers and decimals still fails for zero.
        #expect(failure("Rating div 0 eq 1")?.code == .semantic)
        #expect(failure("Revenue div 0 eq 1")?.code == .semantic)
    }

    // 2. "If the right operand is zero, the request fails", for every numeric type; fmod for doubles.
    @Test func modByZeroFailsAndDoublesModExactly() {
        for filter in ["Score mod 0 eq 1.0", "Rating mod 0 eq 1", "Revenue mod 0 eq 1", "Big mod 0 eq 1", "Score mod (Rating sub Rating) eq 0",
                       // An ordering comparison with null is never true, but its computed side is still evaluated.
                       "Score mod 0 gt null", "null le Rating mod 0", "not (Big mod 0 lt null)"] {
            let error = failure(filter)
            #expect(error?.code == .semantic, "\(filter): \(String(describing: error))")
            #expect(error?.message.contains("division by zero") == true, "\(filter)")
        }
        // 1.7976931348623157e308 is a multiple of 256 (fmod gives 0); INF mod 256 is NaN.
        #expect(ids("Score mod 256 gt 255") == [])
        #expect(ids("Score mod 256 eq 0") == [12])
        #expect(ids("Score mod 2 eq -0.5") == [2])
        #expect(ids("cast(Score mod 256,Edm.String) eq 'NaN'") == [9, 10, 11])
        #expect(ids("Score mod 2 gt null") == [])
        #expect(ids("not (Score mod 2 gt null)") == Self.all)
    }

    // 3. "The special value NaN is not equal to anything, even to itself."
    @Test func nanEqualsNothing() {
        #expect(ids("Score eq NaN") == [])
        #expect(ids("Score ne NaN") == Self.all)
        #expect(ids("Score eq Score") == [1, 2, 3, 4, 5, 6, 8, 9, 10, 12])
        #expect(ids("Score ne Score") == [11])
        #expect(ids("Score in (NaN,1.5)") == [1])
        #expect(ids("cast('NaN',Edm.Double) eq null") == [])
        #expect(ids("cast('NaN',Edm.Double) ne cast('NaN',Edm.Double)") == Self.all)
        // Ordering comparisons with NaN are false; not of them true.
        #expect(ids("Score gt 1000") == [9, 12])
        #expect(ids("Score ge -INF") == [1, 2, 4, 5, 9, 10, 12])
        #expect(ids("Score lt INF") == [1, 2, 4, 5, 10, 12])
        #expect(ids("not (Score gt 1000)") == [1, 2, 3, 4, 5, 6, 8, 10, 11])
        #expect(ids("Score le NaN") == [])
    }

    // The README's readings: an Int64 against a Double compares exactly; isof of null is false.
    @Test func readingsWhereTheSpecificationLeavesAChoice() {
        #expect(ids("Big eq 9007199254740992.0") == [])
        #expect(ids("Big gt 9007199254740992.0") == [1])
        #expect(ids("isof(Score,Edm.Double)") == Self.scored)
        #expect(ids("Rating add 2147483647 gt 2147483647") == [1, 2, 4, 5, 6])
    }

    @Test func specialValuesAreStoredOrderedAndWrittenAsODataWritesThem() throws {
        // Nulls first, then -INF, the numbers, INF, and NaN last.
        #expect(try store.ids("Agencies?$orderby=Score,ID") == [3, 6, 8, 10, 2, 5, 1, 4, 12, 9, 11])
        #expect(try store.ids("Agencies?$orderby=Score desc,ID") == [11, 9, 12, 4, 1, 5, 2, 10, 3, 6, 8])
        // OData JSON writes the three special values as strings.
        #expect(try store.read("Agencies(9)")["Score"]?.stringValue == "INF")
        #expect(try store.read("Agencies(10)")["Score"]?.stringValue == "-INF")
        #expect(try store.read("Agencies(11)")["Score"]?.stringValue == "NaN")
        #expect(try store.read("Agencies(12)")["Score"]?.doubleValue == Double.greatestFiniteMagnitude)
    }

    // 4. "using syntax and semantics of [ECMAScript] regular expressions": ASCII classes.
    @Test func patternsHaveECMAScriptSemantics() throws {
        try store.insert("Agencies", [("ID", .integer(13)), ("Name", .text("Line\nTwo"))])
        try store.insert("Agencies", [("ID", .integer(14)), ("Name", .text("\u{0660}\u{00A0}caf\u{00E9}"))])
        #expect(ids("matchesPattern(Name,'^\\w+$')") == [1, 2, 5, 8, 9, 10, 11, 12])
        #expect(ids("matchesPattern(Name,'\\d')") == [4, 5, 9, 10, 11, 12])
        #expect(ids("matchesPattern(Name,'caf\\w')") == [])
        #expect(ids("matchesPattern(Name,'caf\\W')") == [14])
        // ü is no ECMAScript word character, so there is a boundary before "rich".
        #expect(ids("matchesPattern(City,'\\brich')") == [6])
        #expect(ids("matchesPattern(Name,'\\Bpha')") == [1])
        #expect(ids("matchesPattern(Name,'\\s')") == [3, 4, 13, 14])
        #expect(ids("matchesPattern(Name,'^[^]{4}$')") == [2])
        #expect(ids("matchesPattern(Name,'e[^]T')") == [13])
        #expect(ids("matchesPattern(Name,'e.T')") == [])
        #expect(ids("matchesPattern(Name,'\\cJ')") == [13])
        #expect(ids("matchesPattern(Name,'[\\cJ]T')") == [13])
        #expect(ids("matchesPattern(Name,'[\\d\\s]')") == [3, 4, 5, 9, 10, 11, 12, 13, 14])
        #expect(ids("matchesPattern(Name,'^Line$')") == [])
        // The documented refusals stay.
        #expect(failure("matchesPattern(Name,'(a+)+')")?.code == .semantic)
        #expect(failure("matchesPattern(Name,'\\c1')")?.message.contains("not a valid regular expression") == true)
    }

    // 5. "The cast fails if the integer part doesn't fit into the target type"; byteValue has no sign.
    @Test func castsThatDoNotFitAreNull() {
        #expect(ids("cast(Score,Edm.Single) eq null") == [3, 6, 8, 12])
        #expect(ids("cast(Score,Edm.Single) eq INF") == [9])
        #expect(ids("cast('+5',Edm.Byte) eq null") == Self.all)
        #expect(ids("cast('5',Edm.Byte) eq 5") == Self.all)
        #expect(ids("cast('+5',Edm.SByte) eq 5") == Self.all)
        #expect(ids("cast('0005',Edm.Byte) eq null") == Self.all)
        #expect(ids("cast('-000032768',Edm.Int16) eq null") == Self.all)
        #expect(ids("cast('.5',Edm.Double) eq null") == Self.all)
        #expect(ids("cast('1e3',Edm.Double) eq 1000") == Self.all)
    }

    // 6. A case pair's colon after a two-digit number; durations with fractional seconds and a sign.
    @Test func caseColonsAndDurationsParseAsTheABNFSays() {
        #expect(ids("case(Rating gt 42:1,true:2) eq 2") == Self.all)
        #expect(ids("case(Rating gt 42:10,true:2) eq 2") == Self.all)
        #expect(ids("case(Rating gt 4:10,Rating gt 2:20,true:30) eq 20") == [2, 4])
        #expect(ids("case(Rating eq 05:99,true:0) eq 99") == [1])
        #expect(ids("duration'PT1.5S' gt duration'-PT1.25S'") == Self.all)
        #expect(ids("duration'-PT1.25S' eq duration'-PT1.250S'") == Self.all)
        #expect(ids("duration'P1DT0.5S' gt duration'PT23H59M59.9S'") == Self.all)
        // 4.01's durationValue has no `+` (4.0's had one): the literal is refused, the cast is null.
        #expect(ids("cast('+PT1S',Edm.Duration) eq null") == Self.all)
        #expect(ids("cast('-PT1S',Edm.Duration) lt duration'PT0S'") == Self.all)
        for bad in ["duration'PT1.S'", "duration'PT1.5H'", "duration'PT.5S'", "duration'+PT1S'"] {
            #expect(failure("\(bad) eq \(bad)")?.code == .syntax, "\(bad)")
        }
    }

    // 7. Integer overflow fails the request naming the operator, like a division by zero.
    @Test func integerOverflowFailsTheRequest() {
        for (filter, op) in [("Big add 9223372036854775807 gt 0", "add"), ("Big sub 9223372036854775807 lt 0", "sub"),
                             ("Big mul 1024 gt 0", "mul"), ("-9223372036854775808 div -1 eq 0", "div"),
                             ("-Big sub 9223372036854775807 lt 0", "sub")] {
            let error = failure(filter)
            #expect(error?.code == .semantic, "\(filter): \(String(describing: error))")
            #expect(error?.message.contains("integer overflow in '\(op)'") == true, "\(filter): \(String(describing: error))")
        }
        // Narrow operands compute in SQLite's own operators and do not overflow.
        #expect(ids("Rating mul 2147483647 mul 2 gt 0") == [1, 2, 4, 5, 6])
        #expect(ids("Big add 1 eq 9007199254740994") == [1])
    }
}
