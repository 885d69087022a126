import Testing
@_spi(Tool) @testable import OfflineOData

/// Plans that use the key and declared indexes (issue 23): what SQLite's plan says for each read
/// shape, that the answers keep OData's order, and that declarations are checked and kept.
@Suite struct IndexPlanTests {
    static let metadata = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="Plan" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <ComplexType Name="Address"><Property Name="City" Type="Edm.String"/></ComplexType>
          <EntityType Name="Agency">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
            <Property Name="Name" Type="Edm.String"/>
            <Property Name="City" Type="Edm.String"/>
            <Property Name="Revenue" Type="Edm.Decimal" Scale="variable"/>
            <Property Name="Address" Type="Plan.Address"/>
            <Property Name="Tags" Type="Collection(Edm.String)"/>
          </EntityType>
          <EntityContainer Name="Container">
            <EntitySet Name="Agencies" EntityType="Plan.Agency"/>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

    /// A store of `count` agencies loaded in a shuffled order (so insertion order is not key order):
    /// ID i, city `C(i % 10)`, revenue `i % 7` as a decimal.
    static func makeStore(_ folder: TemporaryFolder, count: Int = 600) throws -> LocalStore {
        let store = try LocalStore.create(path: folder.file("plan.store"), metadata: metadata,
                                            definingRequests: [DefiningRequest(name: "All", url: "Agencies")])
        var ids = Array(1...count)
        var state: UInt64 = 23
        for index in stride(from: ids.count - 1, to: 0, by: -1) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            ids.swapAt(index, Int(state >> 33) % (index + 1))
        }
        let rows = ids.map { #"{"ID":\#($0),"Name":"Agency \#($0)","City":"C\#($0 % 10)","Revenue":\#($0 % 7).5,"Address":{"City":"A\#($0 % 3)"},"Tags":["t"]}"# }
        let page = #"{"value":["# + rows.joined(separator: ",") + "]}"
        _ = try store.load(pages: [Array(page.utf8)], definingRequest: "All")
        return store
    }

    static func ids(_ store: LocalStore, _ url: String) throws -> [Int64] {
        let response = try store.execute(method: "GET", url: url)
        guard case .array(let rows)? = try JSONValue.parse(response.body)["value"] else { return [] }
        return rows.compactMap { $0["ID"]?.int64Value }
    }

    static func plan(_ store: LocalStore, _ url: String) throws -> String {
        try store.explain(url: url).plan.joined(separator: "; ")
    }

    @Test func rangesOnTheKeyAndInListsSearchTheKeyIndexWithoutSorting() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        defer { store.close() }
        for url in ["Agencies?$filter=ID gt 100&$top=20", "Agencies?$filter=ID ge 10 and ID lt 50&$top=20",
                    "Agencies?$filter=ID lt 500&$orderby=ID desc&$top=20", "Agencies?$filter=ID in (5,7,9)",
                    "Agencies?$orderby=ID&$top=20", "Agencies?$top=20"] {
            let plan = try Self.plan(store, url)
            #expect(plan.contains("USING INDEX es/Agencies/key"), "\(url): \(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(url): \(plan)")
        }
    }

    @Test func answersComeInKeyOrderWhateverOrderTheyWereLoadedIn() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        defer { store.close() }
        #expect(try Self.ids(store, "Agencies?$filter=ID gt 100&$top=20") == Array(101...120))
        #expect(try Self.ids(store, "Agencies?$filter=ID ge 10 and ID lt 15") == [10, 11, 12, 13, 14])
        #expect(try Self.ids(store, "Agencies?$filter=ID lt 500&$orderby=ID desc&$top=3") == [499, 498, 497])
        #expect(try Self.ids(store, "Agencies?$filter=ID in (9,5,7)") == [5, 7, 9])
        #expect(try Self.ids(store, "Agencies?$skip=597") == [598, 599, 600])
        #expect(try Self.ids(store, "Agencies?$filter=City eq 'C3'&$top=3") == [3, 13, 23])
    }

    @Test func aLoadLeavesStatisticsForThePlanner() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        defer { store.close() }
        let rows = try store.file.withConnection { db throws(ODataError) in
            try db.scalarInt("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'es/Agencies'")
        }
        #expect((rows ?? 0) >= 1)
    }

    @Test func aDeclaredIndexServesFiltersAndOrdersAndKeepsTheAnswers() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder)
        defer { store.close() }
        let urls = ["Agencies?$filter=City eq 'C3'&$top=5", "Agencies?$orderby=City&$top=7", "Agencies?$filter=City eq 'C4' and ID gt 300",
                    "Agencies?$filter=Revenue gt 5&$orderby=Revenue desc&$top=4", "Agencies?$filter=Address/City eq 'A1' and Name eq 'Agency 301'"]
        let before = try urls.map { try Self.ids(store, $0) }
        #expect(try !Self.plan(store, urls[0]).contains("es/Agencies/index/City"))
        try store.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["City"]),
                                  try IndexDeclaration(parsing: "Agencies:Revenue"),
                                  try IndexDeclaration(parsing: "Agencies:Address/City,Name")])
        #expect(try urls.map { try Self.ids(store, $0) } == before)
        #expect(try Self.plan(store, urls[0]).contains("USING INDEX es/Agencies/index/City (City=?)"))
        let orderPlan = try Self.plan(store, urls[1])
        #expect(orderPlan.contains("es/Agencies/index/City") && !orderPlan.contains("TEMP B-TREE"), "\(orderPlan)")
        #expect(try Self.plan(store, urls[3]).contains("es/Agencies/index/Revenue"))
        #expect(try Self.plan(store, urls[4]).contains("es/Agencies/index/Address/City,Name"))
        let listed = try store.indexes()
        #expect(listed.map(\.properties) == [["Address/City", "Name"], ["City"], ["Revenue"]])
        #expect(listed.allSatisfy { $0.origin == .declared && $0.entitySet == "Agencies" && !$0.createdAt.isEmpty })
    }

    @Test func declaredIndexesStayWithTheFileAndDeclaringAgainChangesNothing() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, count: 20)
        try store.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["City"])])
        store.close()
        let reopened = try LocalStore.open(path: folder.file("plan.store"))
        defer { reopened.close() }
        let first = try reopened.indexes()
        try reopened.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["City"])])
        #expect(try reopened.indexes() == first)
        #expect(first.map(\.name) == ["es/Agencies/index/City"])
        let sqlIndexes = try reopened.file.withConnection { db throws(ODataError) in
            try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'es/Agencies/index/City'")
        }
        #expect(sqlIndexes == 1)
    }

    @Test(arguments: [
        ("Nowhere:City", "no entity set 'Nowhere'"), ("Agencies:Mayor", "no stored property 'Mayor'"),
        ("Agencies:Tags", "kept as JSON"), ("Agencies:City,City", "named twice"),
        ("Agencies:A,B,C,D,E,F,G,H,I", "1 to 8 properties"), ("Agencies:City,", "no stored property ''"),
    ])
    func aDeclarationThatDoesNotFitTheModelIsRefusedAndNothingIsMade(text: String, reason: String) throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, count: 5)
        defer { store.close() }
        #expect {
            try store.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["Name"]), try IndexDeclaration(parsing: text)])
        } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .misuse && error.message.contains(reason)
        }
        #expect(try store.indexes().isEmpty)
    }

    @Test(arguments: ["Agencies", ":City", "Agencies:", ""])
    func declarationTextWithoutSetAndPropertiesIsRefused(text: String) {
        #expect { try IndexDeclaration(parsing: text) } throws: {
            ($0 as? ODataError)?.code == .misuse && (($0 as? ODataError)?.message.contains("ENTITYSET:PROPERTY") ?? false)
        }
    }

    @Test func aFormat6StoreGainsTheIndexTablesWhenOpened() throws {
        let folder = TemporaryFolder()
        let store = try Self.makeStore(folder, count: 3)
        try store.file.withConnection { db throws(ODataError) in
            // A format-6 file has neither the index tables (7), the sync record (8) nor the queue's merge mark (9) nor the
            // resume tables (10) nor the conflict record (11)
            // nor the streams (12).
            try db.execute("""
                DROP TABLE ood_index; DROP TABLE ood_read_shape;
                DROP TABLE ood_download_statistics; DROP TABLE ood_upload_statistics; DROP TABLE ood_sync_log;
                DROP TABLE ood_download_resume; DROP TABLE ood_download_page; DROP TABLE ood_conflict;
                DROP TABLE ood_stream; ALTER TABLE ood_defining_request DROP COLUMN streams;
                ALTER TABLE ood_request_queue DROP COLUMN no_merge; ALTER TABLE ood_error_archive DROP COLUMN no_merge;
                UPDATE ood_store_info SET value = '6' WHERE key = 'format_version'
                """)
        }
        store.close()
        let reopened = try LocalStore.open(path: folder.file("plan.store"))
        defer { reopened.close() }
        #expect(try reopened.file.formatVersion() == StoreFormat.currentVersion)
        #expect(try reopened.indexes().isEmpty)
        #expect(try reopened.createAutomaticIndexes().isEmpty, "ood_read_shape is there to count in")
        try reopened.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["Name"])])
        #expect(try reopened.indexes().count == 1)
    }
}
