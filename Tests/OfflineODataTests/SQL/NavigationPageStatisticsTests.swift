import Testing
@_spi(Tool) @testable import OfflineOData

/// Pages of navigation filters decided by `sqlite_stat1` (issue 38): an equality most rows share
/// keeps the walk in key order that stops at the page's end, a selective range is found through
/// its index, and both answer as the whole read does.
extension NavigationPlanTests {
    /// 2,000 customers, each of a country of three (`C0`–`C2`, a third each, indexed); customer i
    /// has `i % 4` orders.
    static func statisticsStore(_ folder: TemporaryFolder) throws -> LocalStore {
        var data = Data()
        var orderID: Int64 = 0
        for id in Int64(1)...2000 {
            data.customers.append(Customer(id: id, country: "C\(id % 3)", isVip: false, hasTags: false))
            for n in 0..<(id % 4) {
                orderID += 1
                data.orders.append(Order(id: orderID, customer: id, amount: (id * 7 + n) % 1000))
            }
        }
        return try makeStore(folder, data, indexes: indexes)
    }

    @Test func theStatisticsAreReadWithTheIndexes() throws {
        let folder = TemporaryFolder()
        let store = try Self.statisticsStore(folder)
        defer { store.close() }
        let indexed = try store.file.withConnection { db throws(ODataError) in try IndexedColumns.read(on: db) }
        let customers = try #require(store.schema.table(forEntitySet: "Customers"))
        let orders = try #require(store.schema.table(forEntitySet: "Orders"))
        let country = try #require(customers.column(path: ["Country"])), customerID = try #require(orders.column(path: ["CustomerID"]))
        // `ANALYZE` samples (`analysis_limit`): its row count is an estimate, about right.
        let rows = try #require(indexed.rows(customers))
        #expect(rows > 400 && rows < 10_000, "\(rows)")
        // A third of the customers per country; about one and a half orders per customer.
        #expect(try #require(indexed.rowsPerValue(customers, country)) > rows / 10)
        #expect(try #require(indexed.rowsPerValue(orders, customerID)) < 5)
        #expect(indexed.rowsPerValue(orders, try #require(orders.column(path: ["ID"]))) == 1)
    }

    @Test func anEqualityMostRowsShareKeepsTheEarlyStopAndASelectiveRangeUsesItsIndex() throws {
        let folder = TemporaryFolder()
        let store = try Self.statisticsStore(folder)
        defer { store.close() }
        // A third of the orders match: testing orders in key order fills the page after a few dozen.
        for url in ["Orders?$filter=Customer/Country eq 'C1'&$top=20", "Orders?$filter=Customer/Country in ('C1','C2')&$skip=3&$top=20"] {
            let plan = try IndexPlanTests.plan(store, url)
            #expect(plan.contains("SCAN t0 USING INDEX") && plan.contains("CORRELATED") && !plan.contains("TEMP B-TREE"), "\(url): \(plan)")
        }
        // A range a third pass, counted in the index: the early stop too.
        for url in ["Orders?$filter=Customer/Country gt 'C1'&$top=20"] {
            let plan = try IndexPlanTests.plan(store, url)
            #expect(plan.contains("SCAN t0 USING INDEX") && plan.contains("CORRELATED"), "\(url): \(plan)")
        }
        // A range the last 11 customers pass: found through the key index, then their orders.
        let selective = "Orders?$filter=Customer/ID ge 1990&$top=20"
        let plan = try IndexPlanTests.plan(store, selective)
        #expect(plan.contains("USING INDEX es/Orders/CustomerID (CustomerID=?)") && !plan.contains("SCAN t0"), "\(selective): \(plan)")
        #expect(try IndexPlanTests.ids(store, selective) == Self.orderIDs(customersFrom: 1990).prefix(20).map { $0 })
    }

    /// The orders of customers `first`...2000 of ``statisticsStore(_:)``, in key order.
    static func orderIDs(customersFrom first: Int64) -> [Int64] {
        var ids: [Int64] = [], orderID: Int64 = 0
        for id in Int64(1)...2000 {
            for _ in 0..<(id % 4) {
                orderID += 1
                if id >= first { ids.append(orderID) }
            }
        }
        return ids
    }

    /// Each form the statistics choose answers as the whole read does.
    @Test func pagesChosenByStatisticsAnswerAsTheWholeReadDoes() throws {
        let folder = TemporaryFolder()
        let store = try Self.statisticsStore(folder)
        defer { store.close() }
        var cases: [(String, [Int64])] = []
        for (filter, first) in [("Customer/ID ge 1990", Int64(1990)), ("Customer/ID gt 5", 6)] {
            let expected = Self.orderIDs(customersFrom: first)
            cases.append(("Orders?$filter=\(filter)", expected))
            cases.append(("Orders?$filter=\(filter)&$top=7", Array(expected.prefix(7))))
            cases.append(("Orders?$filter=\(filter)&$skip=5&$top=11", Array(expected.dropFirst(5).prefix(11))))
        }
        try Self.expectAnswers(store, cases)
    }
}
