import Testing
@_spi(Tool) @testable import OfflineOData

/// DateTimeOffset values keep their offset after their UTC form (``StoredInstant``): instants
/// still compare and sort as instants, and the date and time functions read the value's own offset.
@Suite struct InstantOffsetTests {
    let store: ReadTestStore

    /// Agency 1 at 01:30 in +05:30, agency 2 at the same instant in UTC, agency 3 at 23:00 in -08:00.
    init() throws {
        store = try ReadTestStore()
        let founded = try #require(store.schema.table(forEntitySet: "Agencies")?.column(named: "Founded"))
        #expect(founded.keepsOffset)
        for (id, text) in [(1, "2023-05-15T01:30:00+05:30"), (2, "2023-05-14T20:00:00Z"), (3, "2023-05-14T23:00:00-08:00")] {
            let stored = try EDMValueCodec.storedValue(fromJSON: .string(text), column: founded, dialect: .v4)
            try store.insert("Agencies", [("ID", .integer(Int64(id))), ("Founded", stored)])
        }
    }

    func ids(_ query: String) throws -> [Int64] { try store.ids("Agencies?" + query) }

    @Test func storesTheUTCFormThenTheOffset() throws {
        let founded = try #require(store.schema.table(forEntitySet: "Agencies")?.column(named: "Founded"))
        let stored = try EDMValueCodec.storedValue(fromJSON: .string("2023-05-15T01:30:00+05:30"), column: founded, dialect: .v4)
        #expect(stored == .text("2023-05-14T20:00:00.0000000Z+05:30"))
        #expect(try EDMValueCodec.storedValue(fromJSON: .string("2023-05-14T23:00:00-08:00"), column: founded, dialect: .v4)
                == .text("2023-05-15T07:00:00.0000000Z-08:00"))
        #expect(try EDMValueCodec.storedValue(fromJSON: .string("2023-05-14T20:00:00Z"), column: founded, dialect: .v4)
                == .text("2023-05-14T20:00:00.0000000Z"))
    }

    @Test func theSameInstantInTwoOffsetsIsEqualAndInstantsSortAsInstants() throws {
        #expect(try ids("$filter=Founded eq 2023-05-14T20:00:00Z") == [1, 2])
        #expect(try ids("$filter=Founded eq 2023-05-15T01:30:00%2B05:30") == [1, 2])
        #expect(try ids("$filter=Founded gt 2023-05-14T20:00:00Z") == [3])
        #expect(try ids("$filter=Founded le 2023-05-14T20:00:00Z") == [1, 2])
        #expect(try ids("$orderby=Founded desc,ID") == [3, 1, 2])
        #expect(try ids("$filter=Founded in (2023-05-15T07:00:00Z)") == [3])
    }

    @Test func dateAndTimePartsAreThoseOfTheValuesOwnOffset() throws {
        #expect(try ids("$filter=hour(Founded) eq 1") == [1])
        #expect(try ids("$filter=hour(Founded) eq 20") == [2])
        #expect(try ids("$filter=hour(Founded) eq 23") == [3])
        #expect(try ids("$filter=minute(Founded) eq 30") == [1])
        #expect(try ids("$filter=day(Founded) eq 15") == [1])
        #expect(try ids("$filter=day(Founded) eq 14") == [2, 3])
        #expect(try ids("$filter=date(Founded) eq 2023-05-14") == [2, 3])
        #expect(try ids("$filter=time(Founded) eq 01:30:00") == [1])
        #expect(try ids("$filter=totaloffsetminutes(Founded) eq 330") == [1])
        #expect(try ids("$filter=totaloffsetminutes(Founded) eq -480") == [3])
        #expect(try ids("$filter=totaloffsetminutes(Founded) eq 0") == [2])
    }

    @Test func responsesWriteTheInstantInUTC() throws {
        let values = try store.values("Agencies?$orderby=ID", "Founded")
        #expect(values.map(\.stringValue) == ["2023-05-14T20:00:00Z", "2023-05-14T20:00:00Z", "2023-05-15T07:00:00Z"])
    }

    @Test func storesMadeBeforeKeepUTCOnly() throws {
        let schema = try StoreSchema(model: store.model, keepingInstantOffsets: false)
        let founded = try #require(schema.table(forEntitySet: "Agencies")?.column(named: "Founded"))
        #expect(!founded.keepsOffset && founded.sqlDeclaration == "TEXT")
        #expect(try EDMValueCodec.storedValue(fromJSON: .string("2023-05-15T01:30:00+05:30"), column: founded, dialect: .v4)
                == .text("2023-05-14T20:00:00.0000000Z"))
    }
}
