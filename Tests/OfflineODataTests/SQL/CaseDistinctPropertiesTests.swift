import Testing
@_spi(Tool) @testable import OfflineOData

/// SQLite compares column names without case; OData does not. Properties whose names differ only
/// in case (simple, key, complex leaves, a derived type's, one like a system column) each keep
/// their own column and values, in reads, local writes, undo and requeue.
@Suite struct CaseDistinctPropertiesTests {
    /// `Name`/`name`, the key `Code`/`code`, `Rank`/`RANK`, the complex `Address`/`address` with
    /// `City`/`city` each, `_OOD_ID` (like the system column `_ood_id`), and derived types with `NAME`,
    /// `Extra` and `extra`; `Tests/sync/test_case_distinct_properties.py` serves it with odatapy.
    static let metadata = readFile(FlightSample.repositoryRoot + "/Tests/backends/models/case-distinct-v4.xml")
        .map { String(decoding: $0, as: UTF8.self) } ?? ""

    /// Two entities as a service sends them: A of the set's type, B of the derived type Special.
    static let page = """
        {"value":[
         {"Code":"A","code":"a","Name":"upper A","name":"lower a","Rank":1,"RANK":20,
          "Address":{"City":"Berlin","city":"bonn"},"address":{"City":"Paris","city":"lyon"},"_OOD_ID":"own A"},
         {"@odata.type":"#Case.Special","Code":"B","code":"b","Name":"upper B","name":"lower b","Rank":2,"RANK":10,
          "Address":{"City":"Rome","city":"milan"},"address":{"City":"Oslo","city":"bergen"},"_OOD_ID":"own B",
          "NAME":"shout B","Extra":"extra B"}
        ]}
        """

    /// A store with `page` downloaded as the defining request `All`.
    struct Fixture {
        let folder = TemporaryFolder()
        let store: LocalStore

        init() throws {
            store = try LocalStore.create(path: folder.file("case.store"), metadata: CaseDistinctPropertiesTests.metadata,
                                            definingRequests: [DefiningRequest(name: "All", url: "Items")])
            #expect(try store.load(pages: [Array(CaseDistinctPropertiesTests.page.utf8)], definingRequest: "All") == 2)
        }

        /// The JSON answer of a local read.
        func get(_ url: String) throws -> JSONValue {
            try JSONValue.parse(store.execute(method: "GET", url: url).body)
        }

        /// `member` of each entity of a collection read, as text.
        func values(_ url: String, _ member: String) throws -> [String?] {
            try get(url)["value"]?.arrayValue?.map { $0[member]?.text } ?? []
        }

        func write(_ method: String, _ url: String, _ body: String? = nil) throws -> WriteOutcome {
            try store.write(method: method, url: url, body: body.map { Array($0.utf8) })
        }
    }

    @Test func eachColumnGetsAnSQLNameDistinctWithoutCaseInDeclarationOrder() throws {
        let table = try #require(try StoreSchema(model: MetadataReader.read(Self.metadata)).table(forEntitySet: "Items"))
        #expect(table.columns.map(\.name) == ["Code", "code", "Name", "name", "Rank", "RANK", "Address/City", "Address/city",
                                              "address/City", "address/city", "_OOD_ID", "NAME", "Extra", "extra"])
        #expect(table.columns.map(\.sqlName) == ["Code", "code~2", "Name", "name~2", "Rank", "RANK~2", "Address/City",
                                                 "Address/city~2", "address/City~3", "address/city~4", "_OOD_ID~2",
                                                 "NAME~3", "Extra", "extra~2"])
        #expect(table.keyColumns.map(\.sqlName) == ["Code", "code~2"])
        // A model without such names keeps its column names as before.
        let flight = try StoreSchema(model: MetadataReader.read(FlightSample.v4Metadata))
        #expect(flight.tables.allSatisfy { $0.columns.allSatisfy { $0.sqlName == $0.name } })
    }

    @Test func downloadedEntitiesKeepEachPropertysValue() throws {
        let f = try Fixture()
        let a = try f.get("Items(Code='A',code='a')")
        let expected: [(String, String)] = [("Code", "A"), ("code", "a"), ("Name", "upper A"), ("name", "lower a"),
                                            ("Rank", "1"), ("RANK", "20"), ("_OOD_ID", "own A")]
        for (member, value) in expected { #expect(a[member]?.text == value, "\(member)") }
        #expect(a["Address"]?["City"]?.text == "Berlin" && a["Address"]?["city"]?.text == "bonn")
        #expect(a["address"]?["City"]?.text == "Paris" && a["address"]?["city"]?.text == "lyon")
        let b = try f.get("Items(Code='B',code='b')")
        #expect(b["NAME"]?.text == "shout B" && b["Name"]?.text == "upper B" && b["name"]?.text == "lower b")
        #expect(b["Extra"]?.text == "extra B" && b["extra"] == nil)
    }

    @Test func filterOrderByAndSelectReachEachPropertyOfItsOwn() throws {
        let f = try Fixture()
        #expect(try f.values("Items?$filter=name eq 'lower a'", "Code") == ["A"])
        #expect(try f.values("Items?$filter=Name eq 'lower a'", "Code") == [])
        #expect(try f.values("Items?$filter=Name eq 'upper B'", "Code") == ["B"])
        #expect(try f.values("Items?$filter=code eq 'b'", "Code") == ["B"])
        #expect(try f.values("Items?$filter=RANK gt 15", "Code") == ["A"])
        #expect(try f.values("Items?$filter=address/city eq 'bergen'", "Code") == ["B"])
        #expect(try f.values("Items?$filter=Address/city eq 'bonn' and address/City eq 'Paris'", "Code") == ["A"])
        #expect(try f.values("Items?$filter=_OOD_ID eq 'own B'", "Code") == ["B"])
        #expect(try f.values("Items/Case.Special?$filter=NAME eq 'shout B'", "Code") == ["B"])
        #expect(try f.values("Items?$orderby=Rank", "Code") == ["A", "B"])
        #expect(try f.values("Items?$orderby=RANK", "Code") == ["B", "A"])
        #expect(try f.values("Items?$orderby=address/city", "Code") == ["B", "A"])

        let selected = try #require(try f.get("Items?$select=name&$filter=Code eq 'A'")["value"]?[0])
        #expect(selected["name"]?.text == "lower a" && selected["Name"] == nil)
        let complex = try #require(try f.get("Items?$select=address/city&$filter=Code eq 'A'")["value"]?[0])
        #expect(complex["address"]?["city"]?.text == "lyon" && complex["Address"] == nil)

        // The SQL names the clashing column by its own name.
        let explained = try f.store.explain(url: "Items?$filter=name eq 'x'&$orderby=RANK")
        #expect(explained.sql.contains("\"name~2\"") && explained.sql.contains("\"RANK~2\""))
    }

    @Test func localWritesUndoAndTheQueueKeepEachPropertysName() throws {
        let f = try Fixture()
        let createBody = #"{"Code":"C","code":"c","Name":"upper C","name":"lower c","RANK":5,"address":{"city":"turin"}}"#
        let created = try JSONValue.parse(try f.write("POST", "Items", createBody).body)
        #expect(created["Name"]?.text == "upper C" && created["name"]?.text == "lower c")
        #expect(created["Rank"]?.isNull == true && created["RANK"]?.text == "5")
        #expect(created["address"]?["city"]?.text == "turin" && created["address"]?["City"]?.isNull == true)
        #expect(try f.values("Items?$filter=RANK eq 5", "code") == ["c"])

        _ = try f.write("PATCH", "Items(Code='A',code='a')", #"{"name":"patched a","Address":{"City":"Hamburg"}}"#)
        let patched = try f.get("Items(Code='A',code='a')")
        #expect(patched["name"]?.text == "patched a" && patched["Name"]?.text == "upper A")
        #expect(patched["Address"]?["City"]?.text == "Hamburg" && patched["address"]?["City"]?.text == "Paris")

        _ = try f.write("PUT", "Items(Code='B',code='b')", #"{"Code":"B","code":"b","name":"put b"}"#)
        let put = try f.get("Items(Code='B',code='b')")
        #expect(put["name"]?.text == "put b" && put["Name"]?.isNull == true && put["RANK"]?.isNull == true)

        _ = try f.write("DELETE", "Items(Code='C',code='c')")
        #expect(try f.values("Items?$filter=Code eq 'C'", "Code") == [])

        // What the upload sends is each request as the caller wrote it, with the model's names.
        let queue = try f.store.file.queuedRequests()
        #expect(queue.map(\.method.rawValue) == ["POST", "PATCH", "PUT", "DELETE"])
        #expect(queue.first?.body == createBody)
        #expect(queue.map(\.url).dropFirst() == ["Items(Code='A',code='a')", "Items(Code='B',code='b')", "Items(Code='C',code='c')"])

        // Undo puts back the values the service sent, each in its own column.
        _ = try f.store.undoPendingChanges(url: "Items(Code='A',code='a')")
        let undone = try f.get("Items(Code='A',code='a')")
        #expect(undone["name"]?.text == "lower a" && undone["Name"]?.text == "upper A")
        #expect(undone["Address"]?["City"]?.text == "Berlin")
        _ = try f.store.undoPendingChanges(url: "Items(Code='B',code='b')")
        let restored = try f.get("Items(Code='B',code='b')")
        #expect(restored["Name"]?.text == "upper B" && restored["RANK"]?.text == "10" && restored["NAME"]?.text == "shout B")
    }

    @Test func aRequeuedBodySetsTheColumnsItNames() throws {
        let f = try Fixture()
        let write = try f.write("PATCH", "Items(Code='A',code='a')", #"{"Name":"refused"}"#)
        let queued = try #require(try f.store.file.queuedRequests().first { $0.id == write.queueID })
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                _ = try UploadRecorder(schema: f.store.schema, dialect: .v4).archive(queued, status: 400, message: "no", in: db)
            }
        }
        let archived = try #require(try f.store.file.errorArchive().first)
        _ = try f.store.requeueArchivedRequest(id: archived.request.id, body: #"{"name":"corrected"}"#)
        let entity = try f.get("Items(Code='A',code='a')")
        #expect(entity["name"]?.text == "corrected" && entity["Name"]?.text == "refused")
        // A corrected body may not change a key part, whichever case it has.
        let again = try f.write("PATCH", "Items(Code='A',code='a')", #"{"Rank":3}"#)
        let second = try #require(try f.store.file.queuedRequests().first { $0.id == again.queueID })
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                _ = try UploadRecorder(schema: f.store.schema, dialect: .v4).archive(second, status: 400, message: "no", in: db)
            }
        }
        let archivedAgain = try #require(try f.store.file.errorArchive().first { $0.request.id == again.queueID })
        #expect { try f.store.requeueArchivedRequest(id: archivedAgain.request.id, body: #"{"code":"z"}"#) } throws: {
            ($0 as? ODataError)?.code == .constraint
        }
        // Both key parts as they are: not a change of key.
        _ = try f.store.requeueArchivedRequest(id: archivedAgain.request.id, body: #"{"Code":"A","code":"a","Rank":4}"#)
        #expect(try f.get("Items(Code='A',code='a')")["Rank"]?.text == "4")
    }
}
