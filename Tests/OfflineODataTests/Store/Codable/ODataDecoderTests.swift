import FoundationEssentials
import Testing
@_spi(Tool) import OfflineOData
@testable import OfflineODataFoundation

/// The EDM value forms of V2 and V4 JSON, read into Swift types by ``ODataDecoder``.
@Suite struct ODataDecoderTests {
    private struct Values: Decodable, Equatable {
        var amount: Decimal
        var big: Int64
        var ratio: Double
        var when: Date
        var id: UUID
        var bytes: Data
        var note: String?
    }

    private static func response(_ text: String) -> StoreResponse {
        StoreResponse(status: 200, contentType: "application/json", body: Array(text.utf8))
    }

    @Test func v2StringFormsAndV4NumberFormsGiveTheSameValues() throws {
        let v2 = Self.response("""
            {"d":{"results":[{"__metadata":{"type":"S.T"},"amount":"1234.50","big":"9007199254740993","ratio":"0.25",
            "when":"/Date(1700000000123)/","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","bytes":"AQL/","note":null}]}}
            """)
        let v4 = Self.response("""
            {"@odata.context":"$metadata#S","value":[{"@odata.etag":"W/\\"1\\"","amount":1234.50,"big":9007199254740993,
            "ratio":0.25,"when":"2023-11-14T22:13:20.123Z","id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","bytes":"AQL_"}]}
            """)
        let fromV2 = try ODataDecoder().decodeEntities(Values.self, from: v2)
        let fromV4 = try ODataDecoder().decodeEntities(Values.self, from: v4)
        #expect(fromV2 == fromV4)
        let value = try #require(fromV2.first)
        #expect(value.amount == Decimal(string: "1234.5"))
        #expect(value.big == 9_007_199_254_740_993)  // beyond a double's exact integers
        #expect(value.when.timeIntervalSince1970 == 1_700_000_000.123)
        #expect(value.bytes == Data([1, 2, 255]))
        #expect(value.note == nil)
    }

    @Test func datesInEveryODataForm() throws {
        struct Stamp: Decodable { var at: Date }
        let cases: [(String, Double)] = [
            ("/Date(86400000)/", 86_400),
            ("/Date(86400000+0120)/", 86_400),  // the offset says where it was local, not when
            ("1970-01-02", 86_400),
            ("1970-01-02T00:00:00Z", 86_400),
            ("1970-01-02T02:00:00+02:00", 86_400),
            ("1970-01-01T19:00:00.5-05:00", 86_400.5),
            ("1970-01-02T00:00", 86_400),  // V2 Edm.DateTime without an offset is UTC
        ]
        for (text, seconds) in cases {
            let stamp = try ODataDecoder().decode(Stamp.self, from: ["at": .string(text)])
            #expect(stamp.at.timeIntervalSince1970 == seconds, "\(text)")
        }
        for text in ["/Date(x)/", "1970-13-01", "1970-01-02T25:00:00Z", "yesterday", "1970-01-02T00:00:00+0200"] {
            #expect(throws: DecodingError.self, "\(text)") { try ODataDecoder().decode(Stamp.self, from: ["at": .string(text)]) }
        }
    }

    @Test func datesAreWrittenInEachDialectsFormAndReadBack() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(ODataDateText.text(of: date, dialect: .v4) == "2023-11-14T22:13:20.123Z")
        #expect(ODataDateText.text(of: date, dialect: .v2) == "/Date(1700000000123)/")
        #expect(ODataDateText.text(of: Date(timeIntervalSince1970: -86_400), dialect: .v4) == "1969-12-31T00:00:00.000Z")
        #expect(ODataDateText.text(of: Date(timeIntervalSince1970: 1e15), dialect: .v4) == nil)
        for dialect in [Dialect.v2, .v4] {
            let text = try #require(ODataDateText.text(of: date, dialect: dialect))
            #expect(ODataDateText.date(from: text) == date, "\(text)")
        }
        #expect(HTTPDateText.date(from: "Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDateText.date(from: "Sun, 06 Nov 1994 08:49:37 CET") == nil)
    }

    @Test func aCustomDateStrategyReadsTheValue() throws {
        struct Stamp: Decodable { var at: Date }
        var decoder = ODataDecoder()
        decoder.dateDecodingStrategy = .custom { value in Date(timeIntervalSince1970: value.doubleValue ?? -1) }
        #expect(try decoder.decode(Stamp.self, from: ["at": 42]).at.timeIntervalSince1970 == 42)
    }

    @Test func envelopesAndCounts() throws {
        struct Named: Decodable, Equatable { var name: String }
        #expect(try ODataDecoder().decodeEntity(Named.self, from: Self.response(#"{"d":{"name":"v2"}}"#)) == Named(name: "v2"))
        #expect(try ODataDecoder().decodeEntity(Named.self, from: Self.response(#"{"@odata.context":"c","name":"v4"}"#))
                == Named(name: "v4"))
        #expect(try ODataDecoder().decodeEntities(Named.self, from: Self.response(#"{"d":[{"name":"old v2"}]}"#)).count == 1)
        #expect(try ODataDecoder().decodeCount(from: Self.response("42")) == 42)
        #expect(try ODataDecoder().decodeCount(from: Self.response(#"{"@odata.count":7,"value":[]}"#)) == 7)
        #expect(try ODataDecoder().decodeCount(from: Self.response(#"{"d":{"__count":"9","results":[]}}"#)) == 9)
        #expect(throws: ODataError.self) { try ODataDecoder().decodeEntities(Named.self, from: Self.response(#"{"name":"x"}"#)) }
        #expect(throws: ODataError.self) { try ODataDecoder().decodeEntities(Named.self, from: Self.response("not json")) }
    }

    @Test func aValueOfTheWrongFormSaysWhereAndWhat() throws {
        struct Priced: Decodable { var price: Decimal }
        do {
            _ = try ODataDecoder().decodeEntities(Priced.self, from: Self.response(#"{"value":[{"price":"12.5"},{"price":"cheap"}]}"#))
            Issue.record("'cheap' decoded as a decimal")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["[1]", "price"])
            #expect(context.debugDescription.contains("\"cheap\""))
        }
    }
}
