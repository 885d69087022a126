import Testing
@_spi(Tool) @testable import OfflineOData

/// What an answer says it holds (``AnswerShape``), decided from the bound request where the answer
/// is written, and the headers known then (an entity's `ETag`, from its row).
@Suite struct AnswerShapeTests {
    @Test func readsSayWhatTheyHold() throws {
        let store = try ReadTestStore.sample()
        #expect(try store.raw("Agencies?$top=1").shape == AnswerShape(kind: .collection, entitySet: "Agencies", entityType: "Test.Agency"))
        #expect(try store.raw("Agencies(1)").shape == AnswerShape(kind: .entity, entitySet: "Agencies", entityType: "Test.Agency"))
        // A navigation answers entities of its target set; a cast, of the cast's type.
        #expect(try store.raw("Agencies(1)/Bookings").shape == AnswerShape(kind: .collection, entitySet: "Bookings", entityType: "Test.Booking"))
        #expect(try store.raw("Bookings(AgencyID=1,Number=1)/Agency").shape.kind == .entity)
        #expect(try store.raw("Agencies/Test.SpecialAgency").shape.entityType == "Test.SpecialAgency")
        #expect(try store.raw("Agencies/$count").shape == AnswerShape(kind: .count, entitySet: "Agencies", entityType: "Test.Agency"))
        #expect(try store.raw("Agencies(1)/Name").shape == AnswerShape(kind: .property, entitySet: "Agencies", entityType: "Test.Agency",
                                                                       property: "Name", propertyType: "Edm.String"))
        #expect(try store.raw("Agencies(1)/Address/City").shape.property == "Address/City")
        #expect(try store.raw("Agencies(1)/Address/City").shape.propertyType == "Edm.String")
        #expect(try store.raw("Agencies(1)/Address").shape.propertyType == "Test.Address")
        #expect(try store.raw("Agencies(1)/Tags").shape.propertyType == "Collection(Edm.String)")
        #expect(try store.raw("Agencies(1)/Revenue/$value").shape == AnswerShape(kind: .value, entitySet: "Agencies", entityType: "Test.Agency",
                                                                                 property: "Revenue", propertyType: "Edm.Decimal"))
    }

    @Test func anEntitysETagIsTakenFromItsRow() throws {
        let store = try ReadTestStore.sample()
        #expect(try store.raw("Agencies(1)").headers == [HTTPHeader("ETag", "W/\"1\"")])
        #expect(try store.raw("Agencies(1)?$expand=Bookings").headers == [HTTPHeader("ETag", "W/\"1\"")])
        #expect(try store.raw("Agencies(2)").headers.isEmpty)
        #expect(try store.raw("Agencies").headers.isEmpty)
        let v2 = try ReadTestStore.sample(dialect: .v2)
        #expect(try v2.raw("Agencies(1)").headers == [HTTPHeader("ETag", "W/\"1\"")])
    }

    /// `$value` is written as the value's text, never as JSON: each type as it was when the
    /// JSON was parsed back (strings without quotes or escapes, numbers and instants as JSON writes them).
    @Test func rawValuesAreTheValuesText() throws {
        let store = try ReadTestStore.sample()
        try store.insert("Agencies", [("ID", .integer(20)), ("Name", .text("a \"quoted\" \\ line\nbreak é"))])
        let expected: [(String, String)] = [
            ("Agencies(20)/Name/$value", "a \"quoted\" \\ line\nbreak é"),
            ("Agencies(1)/Revenue/$value", "9.5"), ("Agencies(1)/Score/$value", "1.5"),
            ("Agencies(1)/Big/$value", "9007199254740993"), ("Agencies(1)/Active/$value", "true"),
            ("Agencies(1)/Founded/$value", "2020-01-01T00:00:00Z"), ("Agencies(1)/Opened/$value", "2020-01-01"),
            ("Agencies(1)/Color/$value", "Red"), ("Agencies(1)/Address/City/$value", "Rome"),
        ]
        for (url, text) in expected {
            let answer = try store.raw(url)
            #expect(String(decoding: answer.body, as: UTF8.self) == text, "\(url)")
            #expect(answer.contentType.hasPrefix("text/plain"))
        }
        let v2 = try ReadTestStore.sample(dialect: .v2)
        #expect(String(decoding: try v2.raw("Agencies(1)/Big/$value").body, as: UTF8.self) == "9007199254740993")
    }
}
