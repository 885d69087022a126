import Testing
@_spi(Tool) @testable import OfflineOData

/// A read that repeats is not translated again (issue 23's lean read path): the reader keeps its
/// SQL by URL, runs it on the data as it is now, and keeps nothing that could answer wrongly.
@Suite struct ReadPlanCacheTests {
    @Test func aRepeatedReadIsKeptAndSeesTheDataAsItIsNow() throws {
        let store = try ReadTestStore.sample()
        let url = "Agencies?$filter=City eq 'Rome'&$select=ID,Name"
        #expect(try store.ids(url) == [1])
        #expect(store.reader.plans.count == 1)
        try store.insert("Agencies", [("ID", .integer(9)), ("Name", .text("Nine")), ("City", .text("Rome"))])
        #expect(try store.ids(url) == [1, 9], "the kept SQL runs again on the rows as they are")
        #expect(try store.read(url)["@odata.context"]?.stringValue == "http://host/service/$metadata#Agencies(ID,Name)")
        #expect(store.reader.plans.count == 1)
        // Each kind of read answers the same kept as when first translated.
        for url in ["Agencies(1)", "Agencies(1)/Name", "Agencies(1)/Name/$value", "Agencies/$count", "Agencies?$count=true&$top=1"] {
            let first = try store.raw(url)
            let again = try store.raw(url)
            #expect(first.body == again.body && first.status == again.status && first.contentType == again.contentType, "\(url)")
        }
        #expect(store.reader.plans.count == 6)
    }

    @Test func aKeptReadAnswersAlikeAfterItsStatementWasLetGo() throws {
        let store = try ReadTestStore.sample()
        for url in ["Agencies(2)", "Agencies?$filter=City eq 'Rome'&$select=ID,Name"] {
            let first = try store.raw(url)
            #expect(try store.raw(url).body == first.body)
            store.reader.statements.removeAll()
            #expect(try store.raw(url).body == first.body, "\(url): prepared again once the cache let its statement go")
            try store.db.execute("CREATE INDEX IF NOT EXISTS test_city ON \"es/Agencies\" (\"City\")")
            #expect(try store.raw(url).body == first.body, "\(url): after a schema change")
        }
        try store.insert("Agencies", [("ID", .integer(9)), ("Name", .text("Nine")), ("City", .text("Rome"))])
        #expect(try store.ids("Agencies?$filter=City eq 'Rome'&$select=ID,Name") == [1, 9])
    }

    @Test func aReadWithNowIsTranslatedEachTime() throws {
        let store = try ReadTestStore.sample()
        #expect(try store.ids("Agencies?$filter=Founded lt now()") == [1, 2])
        #expect(try store.ids("Agencies?$filter=Founded lt now()") == [1, 2])
        #expect(store.reader.plans.count == 0, "its SQL holds the instant of the read")
    }

    @Test func refusedAndLongReadsAreNotKept() throws {
        let store = try ReadTestStore.sample()
        for _ in 0..<2 { #expect(store.error("Agencies?$filter=Nope eq 1")?.code == .semantic) }
        let long = "Agencies?$filter=Name ne '" + String(repeating: "x", count: ReadPlanCache.maximumURLLength) + "'"
        #expect(try store.ids(long).count == 7)
        #expect(store.reader.plans.count == 0)
    }

    @Test func aKeptReadStillFailsAsAFaultOfTheRequest() throws {
        let store = try ReadTestStore.sample()
        let url = "Agencies?$filter=ID div (ID sub 5) gt 1"
        for _ in 0..<2 {
            let error = store.error(url)
            #expect(error?.code == .semantic && error?.message.hasPrefix("division by zero in the request") == true, "\(String(describing: error))")
        }
        #expect(store.reader.plans.count == 1, "the SQL is sound: the data makes it fail")
    }
}
