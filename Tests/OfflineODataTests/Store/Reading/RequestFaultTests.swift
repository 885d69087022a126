import Testing
@_spi(Tool) @testable import OfflineOData

/// Faults of the request that only the data or the path reveal (issue 23): a division by zero in
/// the data, `/$count` with paging options.
@Suite struct RequestFaultTests {
    typealias Plan = IndexPlanTests

    @Test(arguments: ["Agencies?$filter=ID div (ID sub 5) gt 1", "Agencies?$filter=ID mod (ID sub 5) eq 0",
                      "Agencies?$filter=Revenue div (Revenue sub Revenue) gt 1", "Agencies/$count?$filter=ID div (ID sub 5) gt 1"])
    func aDivisionByZeroInTheDataIsAFaultOfTheRequest(url: String) throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 10)
        defer { store.close() }
        #expect { try store.execute(method: "GET", url: url) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .semantic && error.message.hasPrefix("division by zero in the request")
        }
        // Where no entity has a zero divisor, the same expression answers.
        let fine = url.replacing("(ID sub 5)", with: "(ID add 100)").replacing("(Revenue sub Revenue)", with: "(Revenue add 1)")
        #expect(try store.execute(method: "GET", url: fine).status == 200)
    }

    @Test(arguments: ["Agencies/$count?$top=2", "Agencies/$count?$skip=1", "Agencies/$count?$filter=ID gt 3&$top=1"])
    func countWithPagingIsRefused(url: String) throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 10)
        defer { store.close() }
        #expect { try store.execute(method: "GET", url: url) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .syntax && error.message.contains("do not apply to /$count")
        }
        #expect(String(decoding: try store.execute(method: "GET", url: "Agencies/$count?$filter=ID gt 3").body, as: UTF8.self) == "7")
    }
}

