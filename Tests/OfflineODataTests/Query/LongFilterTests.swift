import Testing
@_spi(Tool) @testable import OfflineOData

/// Issue 20: a `$filter` of any shape up to the URL size limit is answered or refused with a
/// clear error, never a crash. Long chains of one operator are bound and translated without
/// recursion as deep as the chain; nesting that is really nested stops at a depth limit.
@Suite("Query: long filters")
struct LongFilterTests {
    /// The sample's agencies that are not deleted.
    static let everyAgency: [Int64] = [1, 2, 3, 4, 5, 6, 8]

    func chain(_ term: String, _ op: String, _ count: Int) -> String {
        Array(repeating: term, count: count).joined(separator: " \(op) ")
    }

    @Test func fiveThousandAndTermsAreAnswered() throws {
        let store = try ReadTestStore.sample()
        let filter = chain("ID gt 0", "and", 5_000)
        #expect(try store.ids("Agencies?$filter=" + filter + "&$orderby=ID") == Self.everyAgency)
        #expect(try store.ids("Agencies?$filter=" + filter + " and ID lt 3&$orderby=ID") == [1, 2])
        // The chain in a lambda, and `not` of a long chain.
        #expect(try store.ids("Agencies?$filter=not (\(chain("ID gt 2", "and", 2_000)))&$orderby=ID") == [1, 2])
    }

    @Test func longOrChainsAreAnswered() throws {
        let store = try ReadTestStore.sample()
        for count in [3, 17, 100, 1_000, 4_000] {
            let filter = chain("ID eq 3", "or", count) + " or ID eq 5"
            #expect(try store.ids("Agencies?$filter=" + filter + "&$orderby=ID") == [3, 5], "\(count)")
        }
        // Mixed: an or chain of and chains, and the other way round.
        let mixed = Array(repeating: "(ID gt 0 and ID lt 2)", count: 500).joined(separator: " or ")
        #expect(try store.ids("Agencies?$filter=" + mixed + "&$orderby=ID") == [1])
        let conjunction = Array(repeating: "(ID eq 4 or ID eq 5)", count: 500).joined(separator: " and ")
        #expect(try store.ids("Agencies?$filter=" + conjunction + "&$orderby=ID") == [4, 5])
    }

    @Test func theSQLOfAChainIsFlat() throws {
        let store = try ReadTestStore.sample()
        #expect(try store.ids("Agencies?$filter=ID eq 1 or ID eq 2 or ID eq 4&$orderby=ID") == [1, 2, 4])
        let sql = try store.reader.explain(url: "Agencies?$filter=ID eq 1 or ID eq 2 or ID eq 4").sql
        // `(t1 OR t2 OR t3)`, not `((t1 OR t2) OR t3)`.
        #expect(sql.split(separator: ") OR (").count == 3, "\(sql)")
        #expect(!sql.contains(")) OR ("), "\(sql)")
    }

    @Test func longArithmeticChainsAreRefusedClearly() throws {
        let store = try ReadTestStore.sample()
        #expect(try store.ids("Agencies?$filter=ID \(String(repeating: "add 0 ", count: 20))eq 3") == [3])
        for count in [40, 5_000] {
            let error = store.error("Agencies?$filter=ID \(String(repeating: "add 0 ", count: count))eq 3")
            #expect(error?.code == .unsupported, "\(count)")
            #expect(error?.message.contains("nested deeper") == true, "\(error?.message ?? "")")
        }
        let decimal = store.error("Agencies?$filter=Revenue \(String(repeating: "add 1 ", count: 5_000))gt 0")
        #expect(decimal?.code == .unsupported)
    }

    @Test func longInListsAreAnswered() throws {
        let store = try ReadTestStore.sample()
        let items = (1...10_000).map { String($0 + 4) }.joined(separator: ",")
        #expect(try store.ids("Agencies?$filter=ID in (\(items))&$orderby=ID") == [5, 6, 8])
        // 40,000 values (SQLite took seconds to compile that many numbered placeholders).
        let long = (1...40_000).map { String($0) }.joined(separator: ",")
        #expect(try store.ids("Agencies?$filter=ID in (\(long))&$orderby=ID") == Self.everyAgency)
    }

    @Test func realNestingStopsAtADepthLimit() throws {
        let store = try ReadTestStore.sample()
        let parens = String(repeating: "(", count: 10_000) + "ID eq 1" + String(repeating: ")", count: 10_000)
        let deep = store.error("Agencies?$filter=" + parens)
        #expect(deep?.code == .syntax)
        #expect(deep?.message.contains("deeper") == true)
        // Parentheses within the parser's limit add no SQL nesting.
        let fine = String(repeating: "(", count: 90) + "ID eq 1" + String(repeating: ")", count: 90)
        #expect(try store.ids("Agencies?$filter=" + fine) == [1])
        // `not` is nested for real: within the translator's limit it is answered, beyond it refused.
        #expect(try store.ids("Agencies?$filter=" + String(repeating: "not ", count: 10) + "(ID eq 1)&$orderby=ID") == [1])
        let nots = store.error("Agencies?$filter=" + String(repeating: "not ", count: 60) + "(ID eq 1)")
        #expect(nots?.code == .unsupported)
        let calls = store.error("Agencies?$filter=" + String(repeating: "concat(", count: 60) + "Name" + String(repeating: ",'b')", count: 60) + " eq 'x'")
        #expect(calls?.code == .unsupported)
        let tooDeep = store.error("Agencies?$filter=" + String(repeating: "not ", count: 5_000) + "(ID eq 1)")
        #expect(tooDeep?.code == .syntax)
    }

    @Test func filtersBeyondTheLimitsAreRefused() throws {
        let store = try ReadTestStore.sample()
        // The reader's URL limit (1 MiB).
        let long = store.error("Agencies?$filter=" + chain("ID gt 0", "and", 90_000))
        #expect(long?.code == .syntax)
        #expect(long?.message.contains("longer than the limit") == true, "\(long?.message ?? "")")
        // More operators than the parser's limit (20,000): no tree as deep as the input.
        let operators = store.error("Agencies?$filter=ID " + String(repeating: "add 0 ", count: 100_000) + "eq 3")
        #expect(operators?.code == .syntax)
        #expect(operators?.message.contains("operators in one expression") == true, "\(operators?.message ?? "")")
        // More conditions than SQLite compiles in reasonable time (10,000).
        let conditions = store.error("Agencies?$filter=" + chain("Active", "or", 10_001))
        #expect(conditions?.code == .unsupported)
        #expect(conditions?.message.contains("10000 conditions") == true, "\(conditions?.message ?? "")")
        // The parser's limit on its own.
        let parser = ODataURLParser(limits: .init(maxDepth: 100, maxLength: 1 << 20, maxOperators: 10))
        #expect(throws: ODataError.self) { try parser.parseFilter(chain("a", "and", 12)) }
        _ = try parser.parseFilter(chain("a", "and", 11))
    }
}
