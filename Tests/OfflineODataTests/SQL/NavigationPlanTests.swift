import Testing
@_spi(Tool) @testable import OfflineOData

/// Navigation paths and lambdas in `$filter` on a store of a few thousand entities made by the
/// engine (issue 23): SQLite's plan reads the foreign-key and key indexes the store makes instead
/// of testing every row, and the answers are those of OData's semantics (null targets, empty
/// collections, `not any`, nested lambdas, casts).
@Suite struct NavigationPlanTests {
    static let metadata = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="Nav" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Customer">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Country" Type="Edm.String"/>
            <Property Name="Tags" Type="Collection(Edm.String)"/>
            <NavigationProperty Name="Orders" Type="Collection(Nav.Order)" Partner="Customer"/>
          </EntityType>
          <EntityType Name="VipCustomer" BaseType="Nav.Customer">
            <Property Name="Level" Type="Edm.Int32"/>
          </EntityType>
          <EntityType Name="Order">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="CustomerID" Type="Edm.Int64"/>
            <Property Name="Amount" Type="Edm.Int32"/>
            <NavigationProperty Name="Customer" Type="Nav.Customer" Partner="Orders">
              <ReferentialConstraint Property="CustomerID" ReferencedProperty="ID"/>
            </NavigationProperty>
            <NavigationProperty Name="Lines" Type="Collection(Nav.Line)" Partner="Order"/>
          </EntityType>
          <EntityType Name="Line">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="OrderID" Type="Edm.Int64"/>
            <Property Name="Quantity" Type="Edm.Int32"/>
            <NavigationProperty Name="Order" Type="Nav.Order" Partner="Lines">
              <ReferentialConstraint Property="OrderID" ReferencedProperty="ID"/>
            </NavigationProperty>
          </EntityType>
          <EntityContainer Name="Container">
            <EntitySet Name="Customers" EntityType="Nav.Customer"><NavigationPropertyBinding Path="Orders" Target="Orders"/></EntitySet>
            <EntitySet Name="Orders" EntityType="Nav.Order">
              <NavigationPropertyBinding Path="Customer" Target="Customers"/><NavigationPropertyBinding Path="Lines" Target="Lines"/>
            </EntitySet>
            <EntitySet Name="Lines" EntityType="Nav.Line"><NavigationPropertyBinding Path="Order" Target="Orders"/></EntitySet>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

    struct Customer { var id: Int64; var country: String?; var isVip: Bool; var hasTags: Bool }
    struct Order { var id: Int64; var customer: Int64?; var amount: Int64 }
    struct Line { var id: Int64; var order: Int64; var quantity: Int64 }
    struct Data { var customers: [Customer] = []; var orders: [Order] = []; var lines: [Line] = [] }

    /// `count` customers: every fifth a `VipCustomer`; no country for `i % 25 == 1`, else `US`
    /// for `i % 7 == 0`, else `X(i % 25)`; tags for even i. Customer i has `i % 4` orders (none for
    /// a quarter of them) of amount `(i * 7 + n) % 1000`; every 50th order has no customer.
    /// Order j has `j % 3` lines of quantity `j % 11 + m`.
    static func data(customers count: Int) -> Data {
        var data = Data()
        var orderID: Int64 = 0, lineID: Int64 = 0
        for id in 1...Int64(count) {
            data.customers.append(Customer(id: id, country: id % 25 == 1 ? nil : id % 7 == 0 ? "US" : "X\(id % 25)",
                                           isVip: id % 5 == 0, hasTags: id % 2 == 0))
            for n in 0..<(id % 4) {
                orderID += 1
                data.orders.append(Order(id: orderID, customer: orderID % 50 == 0 ? nil : id, amount: (id * 7 + n) % 1000))
                for m in 0..<(orderID % 3) {
                    lineID += 1
                    data.lines.append(Line(id: lineID, order: orderID, quantity: orderID % 11 + m))
                }
            }
        }
        return data
    }

    /// A store of ``data(customers:)`` loaded as a service would send it, with `indexes` declared
    /// as an app declares them.
    static func makeStore(_ folder: TemporaryFolder, _ data: Data, indexes: [IndexDeclaration] = []) throws -> LocalStore {
        let store = try LocalStore.create(path: folder.file("nav.store"), metadata: metadata,
                                            definingRequests: [DefiningRequest(name: "Customers", url: "Customers"),
                                                               DefiningRequest(name: "Orders", url: "Orders"),
                                                               DefiningRequest(name: "Lines", url: "Lines")],
                                            indexes: indexes)
        let customers = data.customers.map { customer in
            let country = customer.country.map { #""\#($0)""# } ?? "null"
            let tags = customer.hasTags ? #"["a","b"]"# : "[]"
            return customer.isVip ? ##"{"@odata.type":"#Nav.VipCustomer","ID":\##(customer.id),"Country":\##(country),"Tags":\##(tags),"Level":\##(customer.id % 4)}"##
                : #"{"ID":\#(customer.id),"Country":\#(country),"Tags":\#(tags)}"#
        }
        let orders = data.orders.map { #"{"ID":\#($0.id),"CustomerID":\#($0.customer.map(String.init) ?? "null"),"Amount":\#($0.amount)}"# }
        let lines = data.lines.map { #"{"ID":\#($0.id),"OrderID":\#($0.order),"Quantity":\#($0.quantity)}"# }
        for (name, rows) in [("Customers", customers), ("Orders", orders), ("Lines", lines)] {
            _ = try store.load(pages: [Array((#"{"value":["# + rows.joined(separator: ",") + "]}").utf8)], definingRequest: name)
        }
        return store
    }

    /// The answers as OData defines them, computed from the data: each URL's ids against `expected`.
    static func expectAnswers(_ store: LocalStore, _ cases: [(String, [Int64])]) throws {
        for (url, expected) in cases {
            let answer = try IndexPlanTests.ids(store, url)
            #expect(answer == expected, "\(url): \(answer.count) ids, expected \(expected.count)")
        }
    }

    @Test func navigationPathsAndAnyReadTheForeignKeyAndDeclaredIndexes() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, Self.data(customers: 3000),
                                       indexes: [IndexDeclaration(entitySet: "Customers", properties: ["Country"]),
                                                 IndexDeclaration(entitySet: "Orders", properties: ["Amount"]),
                                                 IndexDeclaration(entitySet: "Lines", properties: ["Quantity"])])
        defer { store.close() }
        let cases: [(url: String, indexes: [String])] = [
            ("Orders?$filter=Customer/Country eq 'US'", ["es/Customers/index/Country (Country=?)", "es/Orders/CustomerID (CustomerID=?)"]),
            ("Lines?$filter=Order/Customer/Country eq 'US'", ["es/Customers/index/Country (Country=?)", "es/Lines/OrderID (OrderID=?)"]),
            ("Customers?$filter=Orders/any(o: o/Amount eq 500)", ["es/Orders/index/Amount (Amount=?)", "es/Customers/key (ID=?)"]),
            ("Customers?$filter=Orders/any(o: o/Lines/any(l: l/Quantity eq 12))", ["es/Lines/index/Quantity (Quantity=?)"]),
        ]
        for (url, indexes) in cases {
            let plan = try IndexPlanTests.plan(store, url)
            for index in indexes { #expect(plan.contains("USING INDEX \(index)"), "\(url): \(plan)") }
            // The outer table is searched through an index, never read whole.
            #expect(!plan.contains("SCAN t0"), "\(url): \(plan)")
        }
    }

    @Test func aPageOfANavigationFilterReadsInKeyOrderAndStopsAtItsEnd() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, Self.data(customers: 3000))
        defer { store.close() }
        // Most rows pass: finding every match and sorting them would read all of them.
        for url in ["Orders?$filter=Customer/Country gt 'A'&$top=20", "Customers?$filter=Orders/any(o: o/Amount gt 5)&$top=20",
                    "Orders?$filter=Customer/Country gt 'A'&$skip=10"] {
            let plan = try IndexPlanTests.plan(store, url)
            #expect(plan.contains("SCAN t0 USING INDEX") && !plan.contains("TEMP B-TREE"), "\(url): \(plan)")
        }
    }

    @Test func withoutAnIndexOnTheTestedPropertyTheForeignKeyIndexStillServesTheJoin() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, Self.data(customers: 3000))
        defer { store.close() }
        // Amount has no index: the orders are read once, their customers found by key.
        let anyPlan = try IndexPlanTests.plan(store, "Customers?$filter=Orders/any(o: o/Amount eq 500)")
        #expect(anyPlan.contains("LIST SUBQUERY") && !anyPlan.contains("CORRELATED"), "\(anyPlan)")
        let pathPlan = try IndexPlanTests.plan(store, "Orders?$filter=Customer/Country eq 'US'")
        #expect(pathPlan.contains("LIST SUBQUERY") && !pathPlan.contains("CORRELATED"), "\(pathPlan)")
    }

    @Test func answersKeepODataSemanticsForNullTargetsEmptyCollectionsAndNegations() throws {
        let folder = TemporaryFolder()
        let data = Self.data(customers: 400)
        let store = try Self.makeStore(folder, data)
        defer { store.close() }
        let country = Dictionary(uniqueKeysWithValues: data.customers.map { ($0.id, $0.country) })
        let ordersOf = Dictionary(grouping: data.orders.filter { $0.customer != nil }, by: { $0.customer ?? 0 })
        let linesOf = Dictionary(grouping: data.lines, by: \.order)
        let customerOf = Dictionary(uniqueKeysWithValues: data.orders.map { ($0.id, $0.customer) })
        func customers(_ test: (Customer, [Order]) -> Bool) -> [Int64] { data.customers.filter { test($0, ordersOf[$0.id] ?? []) }.map(\.id) }
        func orders(_ test: (Order, String??) -> Bool) -> [Int64] {
            data.orders.filter { order in test(order, order.customer.map { country[$0] ?? nil }) }.map(\.id)
        }
        try Self.expectAnswers(store, [
            ("Orders?$filter=Customer/Country eq 'US'", orders { $1 == .some("US") }),
            ("Orders?$filter=Customer/Country gt 'X5'", orders { ($1 ?? nil).map { $0 > "X5" } ?? false }),
            ("Orders?$filter=Customer/Country in ('US','X3')", orders { $1 == .some("US") || $1 == .some("X3") }),
            // A missing customer and a customer without a country are both a null path.
            ("Orders?$filter=Customer/Country eq null", orders { ($1 ?? nil) == nil }),
            ("Orders?$filter=Customer/Country ne 'US'", orders { ($1 ?? nil) != "US" }),
            ("Orders?$filter=not (Customer/Country eq 'US')", orders { ($1 ?? nil) != "US" }),
            ("Orders?$filter=Customer/Country eq 'US' or Amount lt 10", orders { $1 == .some("US") || $0.amount < 10 }),
            ("Orders?$filter=Customer eq null", orders { order, _ in order.customer == nil }),
            ("Customers?$filter=Orders/any(o: o/Amount gt 900)", customers { $1.contains { $0.amount > 900 } }),
            ("Customers?$filter=Orders/any()", customers { !$1.isEmpty }),
            ("Customers?$filter=not Orders/any()", customers { $1.isEmpty }),
            ("Customers?$filter=not Orders/any(o: o/Amount gt 900)", customers { !$1.contains { $0.amount > 900 } }),
            // all over no orders is true.
            ("Customers?$filter=Orders/all(o: o/Amount gt 100)", customers { $1.allSatisfy { $0.amount > 100 } }),
            ("Customers?$filter=Orders/any(o: o/Amount gt 900) and Country eq null", customers { $0.country == nil && $1.contains { $0.amount > 900 } }),
            ("Customers?$filter=Orders/any(o: o/Amount gt 900) or Orders/$count eq 2", customers { $1.contains { $0.amount > 900 } || $1.count == 2 }),
            ("Customers?$filter=Orders/any(o: o/Lines/any(l: l/Quantity eq 12))",
             customers { $1.contains { (linesOf[$0.id] ?? []).contains { $0.quantity == 12 } } }),
            ("Customers?$filter=Orders/any(o: o/Lines/all(l: l/Quantity gt 5))",
             customers { $1.contains { (linesOf[$0.id] ?? []).allSatisfy { $0.quantity > 5 } } }),
            // The lambda's predicate reads the outer entity too.
            ("Customers?$filter=Orders/any(o: o/Amount gt $it/ID)", customers { customer, orders in orders.contains { $0.amount > customer.id } }),
            ("Lines?$filter=Order/Customer/Country eq 'US'",
             data.lines.filter { line in (customerOf[line.order] ?? nil).flatMap { country[$0] ?? nil } == "US" }.map(\.id)),
            ("Orders?$filter=Customer/Country eq 'US'&$top=3", Array(orders { $1 == .some("US") }.prefix(3))),
            ("Customers?$filter=Tags/any(t: t eq 'a') and Orders/any(o: o/Amount lt 50)",
             customers { $0.hasTags && $1.contains { $0.amount < 50 } }),
        ])
    }

    @Test func aTypeCastInAPathRestrictsTheRowsToThatType() throws {
        let folder = TemporaryFolder()
        let data = Self.data(customers: 400)
        let store = try Self.makeStore(folder, data)
        defer { store.close() }
        let byID = Dictionary(uniqueKeysWithValues: data.customers.map { ($0.id, $0) })
        let ordersOf = Dictionary(grouping: data.orders.filter { $0.customer != nil }, by: { $0.customer ?? 0 })
        let customerOf = Dictionary(uniqueKeysWithValues: data.orders.map { ($0.id, $0.customer) })
        func orders(_ test: (Customer?) -> Bool) -> [Int64] { data.orders.filter { test($0.customer.flatMap { byID[$0] }) }.map(\.id) }
        func lines(_ test: (Customer?) -> Bool) -> [Int64] {
            data.lines.filter { test((customerOf[$0.order] ?? nil).flatMap { byID[$0] }) }.map(\.id)
        }
        let vips = data.customers.filter(\.isVip)
        try Self.expectAnswers(store, [
            ("Customers?$filter=Nav.VipCustomer/Country eq 'US'", vips.filter { $0.country == "US" }.map(\.id)),
            ("Customers?$filter=Nav.VipCustomer/ID gt 300", vips.filter { $0.id > 300 }.map(\.id)),
            // The cast of a non-VIP is null: its Country is null there, whatever it holds.
            ("Customers?$filter=Nav.VipCustomer/Country eq null", data.customers.filter { !$0.isVip || $0.country == nil }.map(\.id)),
            ("Customers?$filter=not (Nav.VipCustomer/Country eq 'US')", data.customers.filter { !$0.isVip || $0.country != "US" }.map(\.id)),
            ("Customers?$filter=Nav.VipCustomer/Level eq 1", vips.filter { $0.id % 4 == 1 }.map(\.id)),
            ("Orders?$filter=Customer/Nav.VipCustomer/Country eq 'US'", orders { $0?.isVip == true && $0?.country == "US" }),
            ("Orders?$filter=Customer/Nav.VipCustomer/Country ne 'US'", orders { !($0?.isVip == true && $0?.country == "US") }),
            ("Orders?$filter=Customer/Nav.VipCustomer eq null", orders { $0?.isVip != true }),
            ("Lines?$filter=Order/Customer/Nav.VipCustomer/Country eq 'US'", lines { $0?.isVip == true && $0?.country == "US" }),
            ("Customers?$filter=Nav.VipCustomer/Orders/any()", vips.filter { ordersOf[$0.id] != nil }.map(\.id)),
            ("Customers?$filter=Nav.VipCustomer/Orders/$count gt 1", vips.filter { (ordersOf[$0.id]?.count ?? 0) > 1 }.map(\.id)),
            ("Orders?$filter=Customer/Nav.VipCustomer/Orders/any(o: o/Amount gt 900)",
             orders { customer in customer?.isVip == true && (ordersOf[customer?.id ?? 0] ?? []).contains { $0.amount > 900 } }),
        ])
    }

    /// Teams and members, many to many without a referential constraint: the links are in
    /// `ood_link`, some written from the team's side, some from the member's (its partner).
    static let linkMetadata = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="Link" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Team">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <NavigationProperty Name="Members" Type="Collection(Link.Member)" Partner="Teams"/>
          </EntityType>
          <EntityType Name="Member">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Name" Type="Edm.String"/>
            <NavigationProperty Name="Teams" Type="Collection(Link.Team)" Partner="Members"/>
          </EntityType>
          <EntityContainer Name="Container">
            <EntitySet Name="Teams" EntityType="Link.Team"><NavigationPropertyBinding Path="Members" Target="Members"/></EntitySet>
            <EntitySet Name="Members" EntityType="Link.Member"><NavigationPropertyBinding Path="Teams" Target="Teams"/></EntitySet>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

    @Test func linksWrittenFromEitherSideAnswerAnyAsASemiJoin() throws {
        let store = try ReadTestStore(metadata: Self.linkMetadata)
        for id in Int64(1)...4 { try store.insert("Teams", [("ID", .integer(id))]) }
        for (id, name) in [(Int64(1), "ann"), (2, "bob"), (3, "cy")] { try store.insert("Members", [("ID", .integer(id)), ("Name", .text(name))]) }
        try store.insert("Members", [("ID", .integer(4)), ("Name", .text("ann"))], change: "deleted")
        // Team 1 - ann and bob (from the team's side), team 2 - ann (from the member's side),
        // team 3 - cy (from the member's), team 4 - the deleted ann only.
        try store.link("Teams", 1, "Members", "Members", 1)
        try store.link("Teams", 1, "Members", "Members", 2)
        try store.link("Members", 1, "Teams", "Teams", 2)
        try store.link("Members", 3, "Teams", "Teams", 3)
        try store.link("Teams", 4, "Members", "Members", 4)
        let url = "Teams?$filter=Members/any(m: m/Name eq 'ann')"
        #expect(try store.reader.translatedSQL(url: url).contains("UNION ALL"))
        #expect(try store.ids(url) == [1, 2])
        #expect(try store.ids("Teams?$filter=not Members/any(m: m/Name eq 'ann')") == [3, 4])
        #expect(try store.ids("Teams?$filter=Members/any()") == [1, 2, 3])
        #expect(try store.ids("Members?$filter=Teams/any(t: t/ID ge 2)") == [1, 3])
        #expect(try store.ids("Members?$filter=Teams/all(t: t/ID eq 1)") == [2])
    }
}
