import Testing
@_spi(Tool) @testable import OfflineOData

/// OData V2's `replace(string, find, replacement)` in an offline `$filter` (issue 23): every
/// occurrence, case-sensitive, null in null out; V4 has no such function.
@Suite struct V2ReplaceTests {
    static func v2Store(_ folder: TemporaryFolder) throws -> LocalStore {
        let store = try LocalStore.create(path: folder.file("v2.store"), metadata: IndexPlanTests.metadata, dialect: .v2,
                                            definingRequests: [DefiningRequest(name: "All", url: "Agencies")])
        let page = #"{"d":{"results":[{"ID":"1","Name":"Agency one agency"},{"ID":"2","Name":"Agency two Agency"},{"ID":"3","Name":null}]}}"#
        _ = try store.load(pages: [Array(page.utf8)], definingRequest: "All")
        return store
    }

    static func ids(_ store: LocalStore, _ url: String) throws -> [String] {
        let document = try JSONValue.parse(try store.execute(method: "GET", url: url).body)
        return (document["d"]?["results"]?.arrayValue ?? []).compactMap { $0["ID"]?.stringValue }
    }

    @Test func replaceChangesEveryOccurrenceCaseSensitively() throws {
        let folder = TemporaryFolder()
        let store = try Self.v2Store(folder)
        defer { store.close() }
        #expect(try Self.ids(store, "Agencies?$filter=replace(Name,'Agency','Firm') eq 'Firm two Firm'") == ["2"])
        #expect(try Self.ids(store, "Agencies?$filter=replace(Name,'Agency','Firm') eq 'Firm one agency'") == ["1"])
        #expect(try Self.ids(store, "Agencies?$filter=substringof('Firm',replace(Name,'Agency','Firm'))") == ["1", "2"])
        // A null value stays null: it equals nothing but null.
        #expect(try Self.ids(store, "Agencies?$filter=replace(Name,'Agency','Firm') eq null") == ["3"])
    }

    @Test func replaceIsRefusedInV4AndWithTheWrongArguments() throws {
        let folder = TemporaryFolder()
        let v4 = try IndexPlanTests.makeStore(folder, count: 3)
        defer { v4.close() }
        #expect { try v4.execute(method: "GET", url: "Agencies?$filter=replace(Name,'a','b') eq 'x'") } throws: {
            ($0 as? ODataError)?.code == .syntax && (($0 as? ODataError)?.message.contains("replace is OData V2 syntax") ?? false)
        }
        let v2 = try Self.v2Store(TemporaryFolder())
        defer { v2.close() }
        #expect { try v2.execute(method: "GET", url: "Agencies?$filter=replace(Name,'a') eq 'x'") } throws: {
            ($0 as? ODataError)?.code == .syntax
        }
        #expect { try v2.execute(method: "GET", url: "Agencies?$filter=replace(Name,'a',1) eq 'x'") } throws: {
            ($0 as? ODataError)?.code == .semantic
        }
    }
}
