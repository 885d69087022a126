import Testing
@_spi(Tool) @testable import OfflineOData

/// Depth and length limits end in a `.syntax` error, never a crash or a stack overflow.
@Suite("Query: limits")
struct QueryLimitTests {
    @Test func hundredThousandNestedParenthesesFailCleanly() {
        let input = String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000)
        let parser = ODataURLParser(limits: .init(maxDepth: 100, maxLength: 1_000_000))
        let error = parseError { () throws(ODataError) in try parser.parseFilter(input) }
        #expect(error?.code == .syntax)
        #expect(error?.message.contains("deeper") == true)
        #expect((error?.offset ?? 0) > 0)
    }

    @Test func deepNestingOfEveryKindIsBounded() {
        let parser = ODataURLParser(limits: .init(maxDepth: 100, maxLength: 1_000_000))
        let inputs = [
            String(repeating: "not ", count: 50_000) + "true",
            String(repeating: "-", count: 50_000) + "x",
            String(repeating: "a/any(x:", count: 20_000) + "true" + String(repeating: ")", count: 20_000),
            String(repeating: "concat(", count: 20_000) + "'a'" + String(repeating: ",'b')", count: 20_000),
        ]
        for input in inputs {
            #expect(parseError { () throws(ODataError) in try parser.parseFilter(input) }?.code == .syntax)
        }
        let expand = "$expand=" + String(repeating: "A($expand=", count: 20_000) + "B" + String(repeating: ")", count: 20_000)
        #expect(parseError { () throws(ODataError) in try parser.parseQueryOptions(expand) }?.code == .syntax)
        let search = "$search=" + String(repeating: "(", count: 50_000) + "a" + String(repeating: ")", count: 50_000)
        #expect(parseError { () throws(ODataError) in try parser.parseQueryOptions(search) }?.code == .syntax)
    }

    @Test func theLimitCountsParentheses() throws {
        let parser = ODataURLParser(limits: .init(maxDepth: 100))
        func nested(_ count: Int) -> String {
            String(repeating: "(", count: count) + "a eq -1 and not b" + String(repeating: ")", count: count)
        }
        _ = try parser.parseFilter(nested(97))  // + `not` and the path segment inside: depth 99
        let error = parseError { () throws(ODataError) in try parser.parseFilter(nested(101)) }
        #expect(error?.code == .syntax)
        #expect(error?.offset == 100)
    }

    @Test func lengthLimit() {
        let parser = ODataURLParser(limits: .init(maxDepth: 100, maxLength: 64))
        let error = parseError { () throws(ODataError) in try parser.parse("Products?$filter=" + String(repeating: "a", count: 100)) }
        #expect(error?.code == .syntax)
        #expect(error?.offset == 64)
        #expect(parseError { () throws(ODataError) in try ODataURLParser().parseFilter(String(repeating: "a", count: 70_000)) }?.code == .syntax)
    }

    /// The default limit (100) is sized for real threads: nesting of every kind up to it parses on
    /// a thread with an 8 MB stack (Linux's default), even in this unoptimised build.
    @Test func nestingAtTheDefaultLimitFitsInASmallStack() {
        let inputs = [
            String(repeating: "[", count: 95) + "1" + String(repeating: "]", count: 95) + " eq 1",
            String(repeating: "(", count: 95) + "a eq 1" + String(repeating: ")", count: 95),
            String(repeating: "concat(", count: 95) + "'a'" + String(repeating: ",'b')", count: 95) + " eq 'x'",
            String(repeating: "a/any(x:", count: 45) + "true" + String(repeating: ")", count: 45),
            String(repeating: "not ", count: 95) + "true",
            String(repeating: "[", count: 150) + String(repeating: "]", count: 150),
        ]
        let finished = Protected(0)
        let ran = runOnThread(stackSize: 8 << 20) {
            let parser = ODataURLParser()
            for input in inputs {
                _ = try? parser.parseFilter(input)
                finished.withLock { $0 += 1 }
            }
        }
        #expect(ran)
        #expect(finished.withLock { $0 } == inputs.count)
    }

    @Test func integerOverflowIsDetected() {
        let v2 = ODataURLParser(dialect: .v2)
        let error = parseError { () throws(ODataError) in try v2.parseLiteral("99999999999999999999") }
        #expect(error?.code == .syntax)
        #expect(parseError { () throws(ODataError) in try v2.parseLiteral("9223372036854775808L") }?.code == .syntax)
        #expect(parseError { () throws(ODataError) in try ODataURLParser().parseQueryOptions("$top=99999999999999999999") }?.code == .syntax)
    }
}
