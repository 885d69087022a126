import Testing
@_spi(Tool) @testable import OfflineOData

/// Pages (`$top`, `$skip`) of navigation filters and `all` (issue 23): a page of a filter that
/// indexes answer and few rows pass is found through them, any other keeps reading in key order
/// and stops at the page's end; `all` is one list of the failing items, with the answers of the
/// correlated form (which a page keeps, so each answer is checked against it too).
extension NavigationPlanTests {
    static let indexes = [IndexDeclaration(entitySet: "Customers", properties: ["Country"]),
                          IndexDeclaration(entitySet: "Orders", properties: ["Amount"]),
                          IndexDeclaration(entitySet: "Lines", properties: ["Quantity"])]

    @Test func aPageOfAnEqualityOnAnIndexedPropertyIsFoundThroughTheIndexes() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, Self.data(customers: 3000), indexes: Self.indexes)
        defer { store.close() }
        let cases: [(url: String, indexes: [String])] = [
            // A country no customer has: the statistics' average would say a hundred, the count says none.
            ("Orders?$filter=Customer/Country eq 'Z1'&$top=20", ["es/Customers/index/Country (Country=?)", "es/Orders/CustomerID (CustomerID=?)"]),
            ("Lines?$filter=Order/Customer/Country in ('Z1','Z2')&$skip=5&$top=20", ["es/Customers/index/Country (Country=?)", "es/Lines/OrderID (OrderID=?)"]),
            ("Customers?$filter=Orders/any(o: o/Amount eq 500)&$skip=1&$top=5", ["es/Orders/index/Amount (Amount=?)", "es/Customers/key (ID=?)"]),
            ("Customers?$filter=Orders/any(o: o/Amount eq 500 and o/ID gt 3)&$top=5", ["es/Orders/index/Amount (Amount=? AND ID>?)"]),
            ("Customers?$filter=Orders/any(o: o/Lines/any(l: l/Quantity eq 12))&$top=20", ["es/Lines/index/Quantity (Quantity=?)"]),
        ]
        for (url, indexes) in cases {
            let plan = try IndexPlanTests.plan(store, url)
            for index in indexes { #expect(plan.contains("USING INDEX \(index)"), "\(url): \(plan)") }
            #expect(!plan.contains("SCAN t0") && !plan.contains("CORRELATED"), "\(url): \(plan)")
        }
        // Matches many (a seventh of the customers are in the US; a range most pass): key order,
        // stopping at the page's end (issue 38: by the counts, not the shape).
        for url in ["Orders?$filter=Customer/Country gt 'A'&$top=20", "Customers?$filter=Orders/any(o: o/Amount gt 5)&$top=20",
                    "Orders?$filter=Customer/Country eq 'US'&$top=20", "Lines?$filter=Order/Customer/Country in ('US','X3')&$skip=5&$top=20"] {
            let plan = try IndexPlanTests.plan(store, url)
            #expect(plan.contains("SCAN t0 USING INDEX") && !plan.contains("TEMP B-TREE") && !plan.contains("LIST SUBQUERY"), "\(url): \(plan)")
        }
    }

    @Test func withoutAnIndexOnTheTestedPropertyAPageReadsInKeyOrder() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, Self.data(customers: 3000))
        defer { store.close() }
        for url in ["Orders?$filter=Customer/Country eq 'US'&$top=20", "Customers?$filter=Orders/any(o: o/Amount eq 500)&$top=20"] {
            let plan = try IndexPlanTests.plan(store, url)
            #expect(plan.contains("SCAN t0 USING INDEX") && plan.contains("CORRELATED") && !plan.contains("TEMP B-TREE"), "\(url): \(plan)")
        }
    }

    /// Every answer of a page is the page of the whole answer, with and without indexes, and
    /// both are OData's (nulls, missing targets, empty collections, negations).
    @Test(arguments: [false, true]) func pagesAnswerAsTheWholeReadDoes(indexed: Bool) throws {
        let folder = TemporaryFolder()
        let data = Self.data(customers: 400)
        let store = try Self.makeStore(folder, data, indexes: indexed ? Self.indexes : [])
        defer { store.close() }
        let country = Dictionary(uniqueKeysWithValues: data.customers.map { ($0.id, $0.country) })
        let ordersOf = Dictionary(grouping: data.orders.filter { $0.customer != nil }, by: { $0.customer ?? 0 })
        let linesOf = Dictionary(grouping: data.lines, by: \.order)
        func customers(_ test: (Customer, [Order]) -> Bool) -> [Int64] { data.customers.filter { test($0, ordersOf[$0.id] ?? []) }.map(\.id) }
        func orders(_ test: (Order, String??) -> Bool) -> [Int64] {
            data.orders.filter { order in test(order, order.customer.map { country[$0] ?? nil }) }.map(\.id)
        }
        let filters: [(String, [Int64])] = [
            ("Customer/Country eq 'US'", orders { $1 == .some("US") }),
            ("Customer/Country in ('US','X3')", orders { $1 == .some("US") || $1 == .some("X3") }),
            ("Customer/Country gt 'X5'", orders { ($1 ?? nil).map { $0 > "X5" } ?? false }),
            ("not (Customer/Country eq 'US')", orders { ($1 ?? nil) != "US" }),
            ("Customer/Country eq 'US' or Amount lt 10", orders { $1 == .some("US") || $0.amount < 10 }),
        ]
        let customerFilters: [(String, [Int64])] = [
            ("Orders/any(o: o/Amount eq 500)", customers { $1.contains { $0.amount == 500 } }),
            ("not Orders/any(o: o/Amount eq 500)", customers { !$1.contains { $0.amount == 500 } }),
            ("Orders/all(o: o/Amount gt 100)", customers { $1.allSatisfy { $0.amount > 100 } }),
            ("not Orders/all(o: o/Amount gt 100)", customers { !$1.allSatisfy { $0.amount > 100 } }),
            ("Orders/any(o: o/Lines/all(l: l/Quantity gt 5))", customers { $1.contains { (linesOf[$0.id] ?? []).allSatisfy { $0.quantity > 5 } } }),
            ("Orders/any(o: o/Lines/any(l: l/Quantity eq 12))", customers { $1.contains { (linesOf[$0.id] ?? []).contains { $0.quantity == 12 } } }),
        ]
        var cases: [(String, [Int64])] = []
        for (set, list) in [("Orders", filters), ("Customers", customerFilters)] {
            for (filter, expected) in list {
                cases.append(("\(set)?$filter=\(filter)", expected))
                cases.append(("\(set)?$filter=\(filter)&$top=7", Array(expected.prefix(7))))
                cases.append(("\(set)?$filter=\(filter)&$skip=5&$top=11", Array(expected.dropFirst(5).prefix(11))))
                cases.append(("\(set)?$filter=\(filter)&$skip=\(max(expected.count - 3, 0))", Array(expected.dropFirst(max(expected.count - 3, 0)))))
            }
        }
        try Self.expectAnswers(store, cases)
    }

    /// The choice walks `and` chains of thousands of operands without recursing (a crash before).
    @Test func aLongChainBesideOrInsideANavigationFilterIsAnswered() throws {
        let store = try ReadTestStore(metadata: Self.metadata)
        for id in Int64(1)...4 { try store.insert("Customers", [("ID", .integer(id))]) }
        for id in Int64(1)...8 { try store.insert("Orders", [("ID", .integer(id)), ("CustomerID", .integer(id % 4 + 1)), ("Amount", .integer(id))]) }
        let chain = Array(repeating: "o/Amount gt 2", count: 5_000).joined(separator: " and ")
        #expect(try store.ids("Customers?$filter=Orders/any(o: \(chain))&$top=3") == [1, 2, 3])
        let outer = Array(repeating: "ID gt 1", count: 5_000).joined(separator: " and ")
        #expect(try store.ids("Customers?$filter=\(outer) and Orders/all(o: o/Amount ge 3)") == [4])
    }

    @Test func anIndexMadeAfterAPageWasKeptChangesItsSQL() throws {
        let store = try ReadTestStore(metadata: Self.metadata)
        for id in Int64(1)...6 { try store.insert("Customers", [("ID", .integer(id)), ("Country", .text(id % 2 == 0 ? "US" : "FR"))]) }
        for id in Int64(1)...12 { try store.insert("Orders", [("ID", .integer(id)), ("CustomerID", .integer(id % 6 + 1)), ("Amount", .integer(id))]) }
        let url = "Orders?$filter=Customer/Country eq 'US'&$top=3"
        #expect(try store.ids(url) == [1, 3, 5])
        #expect(store.reader.plans.entry(for: url)?.plan.main?.sql.contains("IN (SELECT") == false)
        try store.db.execute(#"CREATE INDEX "es/Customers/index/Country" ON "es/Customers" ("Country")"#)
        #expect(try store.ids(url) == [1, 3, 5])
        #expect(store.reader.plans.entry(for: url)?.plan.main?.sql.contains("IN (SELECT") == true)
    }

    /// `all` over customers whose orders have null amounts, a deleted order, an order of no one,
    /// no orders at all, and a customer made offline without a key yet.
    @Test func allIsOneListOfTheFailingItemsWithODataNullSemantics() throws {
        let store = try ReadTestStore(metadata: Self.metadata)
        for id in Int64(1)...5 { try store.insert("Customers", [("ID", .integer(id)), ("Country", .text("c\(id)"))]) }
        try store.insert("Customers", [("Country", .text("nokey"))], change: "created")
        let orders: [(Int64, Int64?, Int64?)] = [(1, 1, 200), (2, 1, 300), (3, 2, 200), (4, 2, nil), (5, 4, 50), (7, 5, 200), (8, nil, 10)]
        for (id, customer, amount) in orders {
            try store.insert("Orders", [("ID", .integer(id)), ("CustomerID", customer.map(SQLValue.integer) ?? .null),
                                        ("Amount", amount.map(SQLValue.integer) ?? .null)])
        }
        try store.insert("Orders", [("ID", .integer(6)), ("CustomerID", .integer(5)), ("Amount", .integer(50))], change: "deleted")
        let cases: [(String, [String])] = [
            // A null amount is not greater than 100; the deleted order and the order of no one do not count.
            ("Orders/all(o: o/Amount gt 100)", ["c1", "c3", "c5", "nokey"]),
            ("not Orders/all(o: o/Amount gt 100)", ["c2", "c4"]),
            ("Orders/all(o: o/Amount gt 100) and Country ne 'c5'", ["c1", "c3", "nokey"]),
            ("Orders/all(o: o/Amount gt 100) or Country eq 'c4'", ["c1", "c3", "c4", "c5", "nokey"]),
            ("Orders/all(o: o/Amount eq null)", ["c3", "nokey"]),
            ("Orders/all(o: o/Amount ne null)", ["c1", "c3", "c4", "c5", "nokey"]),
            ("Orders/all(o: o/Amount lt 250 or o/Amount eq null)", ["c2", "c3", "c4", "c5", "nokey"]),
        ]
        for (filter, expected) in cases {
            let url = "Customers?$filter=\(filter)"
            #expect(try store.reader.translatedSQL(url: url).contains("NOT IN (SELECT"), "\(url)")
            #expect(try store.values(url, "Country").compactMap(\.stringValue).sorted() == expected, "\(url)")
            // A page keeps the correlated NOT EXISTS: the same answer by the other form.
            let paged = url + "&$top=100"
            #expect(try !store.reader.translatedSQL(url: paged).contains("NOT IN (SELECT"), "\(paged)")
            #expect(try store.values(paged, "Country").compactMap(\.stringValue).sorted() == expected, "\(paged)")
        }
        // Beside a condition an index narrows, or for one entity, the orders of those customers
        // alone are searched: a list of every failing order would cost more.
        for (url, expected) in [("Customers?$filter=ID lt 4 and Orders/all(o: o/Amount gt 100)", ["c1", "c3"]),
                                ("Customers?$filter=Orders/any(o: o/ID eq 3) and Orders/all(o: o/Amount gt 100)", []),
                                ("Customers(5)?$select=Country&$filter=Orders/all(o: o/Amount gt 100)", [])] {
            if url.hasPrefix("Customers(5)") {
                #expect(try store.read(url)["Country"]?.stringValue == "c5", "\(url)")
            } else {
                #expect(try store.values(url, "Country").compactMap(\.stringValue).sorted() == expected, "\(url)")
            }
            #expect(try !store.reader.translatedSQL(url: url).contains("NOT IN (SELECT"), "\(url)")
        }
        // One list of the failing orders, not a search of the orders for every customer.
        let statement = try store.db.prepare("EXPLAIN QUERY PLAN " + store.reader.translatedSQL(url: "Customers?$filter=Orders/all(o: o/Amount gt 100)"))
        var plan: [String] = []
        while try statement.step() { plan.append(statement.text(at: 3) ?? "") }
        #expect(plan.contains { $0.contains("LIST SUBQUERY") } && !plan.contains { $0.contains("CORRELATED") }, "\(plan)")
    }
}
