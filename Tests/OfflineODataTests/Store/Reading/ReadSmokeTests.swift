import Testing
@testable import OfflineOData

@Suite struct ReadSmokeTests {
    @Test func simpleCollection() throws {
        let store = try ReadTestStore()
        try store.insert("Agencies", [("ID", .integer(1)), ("Name", .text("A")), ("City", .text("Rome"))])
        try store.insert("Agencies", [("ID", .integer(2)), ("Name", .text("B"))])
        let result = try store.raw("Agencies?$filter=City ne 'Rome'")
        print(String(decoding: result.body, as: UTF8.self))
        print(try store.reader.explain(url: "Agencies?$filter=City ne 'Rome' and Rating gt 3&$orderby=Name desc&$top=5"))
        #expect(try store.ids("Agencies?$filter=City ne 'Rome'") == [2])
    }
}
