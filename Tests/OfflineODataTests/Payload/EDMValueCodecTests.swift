import Testing
@_spi(Tool) @testable import OfflineOData

/// The codec on a model with one property of every kind the store keeps.
@Suite struct EDMValueCodecTests {
    static let document = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
        <Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EnumType Name="Color"><Member Name="Red"/><Member Name="Blue"/></EnumType>
        <EntityType Name="T"><Key><PropertyRef Name="ID"/></Key>
          <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
          <Property Name="Flag" Type="Edm.Boolean"/><Property Name="Small" Type="Edm.Byte"/>
          <Property Name="Big" Type="Edm.Int64"/><Property Name="Ratio" Type="Edm.Double"/>
          <Property Name="Price" Type="Edm.Decimal" Precision="15" Scale="2"/>
          <Property Name="Name" Type="Edm.String"/><Property Name="Id" Type="Edm.Guid"/>
          <Property Name="Data" Type="Edm.Binary"/><Property Name="Day" Type="Edm.Date"/>
          <Property Name="At" Type="Edm.DateTimeOffset"/><Property Name="Clock" Type="Edm.TimeOfDay"/>
          <Property Name="Span" Type="Edm.Duration"/><Property Name="Color" Type="N.Color"/>
          <Property Name="Tags" Type="Collection(Edm.String)"/>
        </EntityType>
        <EntityContainer Name="C"><EntitySet Name="Ts" EntityType="N.T"/></EntityContainer></Schema>
        </edmx:DataServices></edmx:Edmx>
        """

    static let table: EntitySetTable? = {
        guard let model = try? MetadataReader.read(document), let schema = try? StoreSchema(model: model) else { return nil }
        return schema.table(forEntitySet: "Ts")
    }()

    private func column(_ name: String) throws -> StoredColumn {
        try #require(Self.table?.column(named: name))
    }

    private func stored(_ json: String, _ name: String, _ dialect: Dialect = .v4) throws -> SQLValue {
        try EDMValueCodec.storedValue(fromJSON: JSONValue.parse(json), column: column(name), dialect: dialect)
    }

    private func written(_ value: SQLValue, _ name: String, _ dialect: Dialect = .v4) throws -> String {
        var writer = JSONWriter()
        try EDMValueCodec.write(value, column: column(name), dialect: dialect, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func readsWhatServicesSend() throws {
        #expect(try stored("true", "Flag") == .integer(1))
        #expect(try stored("255", "Small") == .integer(255))
        #expect(try stored(#""9223372036854775807""#, "Big", .v2) == .integer(Int64.max))
        #expect(try stored("9223372036854775807", "Big") == .integer(Int64.max))
        #expect(try stored("1.5e2", "Ratio") == .real(150))
        #expect(try stored(#""INF""#, "Ratio") == .real(.infinity))
        #expect(try stored(#""12.50""#, "Price", .v2) == .text("12.5"))
        // Every digit the declared Decimal(15,2) holds, more than a Double keeps, stays exact.
        #expect(try stored("9876543210123.45", "Price") == .text("9876543210123.45"))
        #expect(try stored("-9876543210123.45", "Price") == .text("-9876543210123.45"))
        #expect(try stored(#""O'Brien & Co 100% ✈""#, "Name") == .text("O'Brien & Co 100% ✈"))
        #expect(try stored(#""01234567-89AB-CDEF-0123-456789ABCDEF""#, "Id") == .text("01234567-89ab-cdef-0123-456789abcdef"))
        #expect(try stored(#""AQID""#, "Data") == .blob([1, 2, 3]))
        #expect(try stored(#""2024-02-29""#, "Day") == .text("2024-02-29"))
        #expect(try stored(#""2024-01-01T10:00:00+02:00""#, "At") == .text("2024-01-01T08:00:00.0000000Z+02:00"))
        #expect(try stored(#""/Date(1380000000000+0000)/""#, "At", .v2) == .text("2013-09-24T05:20:00.0000000Z"))
        #expect(try stored(#""13:20:05.5""#, "Clock") == .text("13:20:05.5000000"))
        #expect(try stored(#""PT13H20M05S""#, "Clock", .v2) == .text("13:20:05.0000000"))
        #expect(try stored(#""P1DT1S""#, "Span") == .text("86401"))
        #expect(try stored(#""Blue""#, "Color") == .text("Blue"))
        #expect(try stored(#"["a","b"]"#, "Tags") == .text(#"["a","b"]"#))
        #expect(try stored("null", "Name") == .null)
    }

    @Test(arguments: [
        ("\"x\"", "Flag"), ("256", "Small"), ("1.5", "Big"), ("\"abc\"", "Ratio"), ("\"1,5\"", "Price"),
        ("42", "Name"), ("\"not-a-guid\"", "Id"), ("\"***\"", "Data"), ("\"2024-02-30\"", "Day"),
        ("\"yesterday\"", "At"), ("\"25:00\"", "Clock"), ("\"P1Y\"", "Span"), ("true", "Color"),
        // Beyond Decimal(15,2): too many digits before the point, after it, or at all.
        ("12345678901234567890.12", "Price"), ("1.125", "Price"), ("1e20", "Price"),
        ("\"1\(String(repeating: "0", count: 2_000))\"", "Price"),
    ])
    func refusesWhatDoesNotFit(json: String, name: String) throws {
        #expect { try stored(json, name) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .semantic && error.message.contains("'\(name)'")
        }
    }

    @Test func writesEachDialectsForm() throws {
        #expect(try written(.integer(1), "Flag") == "true")
        #expect(try written(.integer(Int64.max), "Big", .v2) == #""9223372036854775807""#)
        #expect(try written(.integer(Int64.max), "Big") == "9223372036854775807")
        #expect(try written(.text("12.5"), "Price", .v2) == #""12.50""#)
        #expect(try written(.text("12.5"), "Price") == "12.50")
        #expect(try written(.real(.infinity), "Ratio") == #""INF""#)
        #expect(try written(.blob([251, 255]), "Data") == #""-_8=""#)
        #expect(try written(.blob([251, 255]), "Data", .v2) == #""+/8=""#)
        #expect(try written(.text("2013-09-24T05:20:00.0000000Z"), "At") == #""2013-09-24T05:20:00Z""#)
        #expect(try written(.text("2013-09-24T05:20:00.0000000Z"), "At", .v2) == #""/Date(1380000000000+0000)/""#)
        #expect(try written(.text("13:20:05.5000000"), "Clock") == #""13:20:05.5""#)
        #expect(try written(.text("13:20:05.0000000"), "Clock", .v2) == #""PT13H20M05S""#)
        #expect(try written(.text("86401"), "Span") == #""P1DT1S""#)
        #expect(try written(.text(#"["a","b"]"#), "Tags") == #"["a","b"]"#)
        #expect(try written(.null, "Name") == "null")
        #expect { try written(.text("garbage"), "At") } throws: { ($0 as? ODataError)?.code == .storage }
    }

    @Test func aValueSurvivesTheRoundTripInBothDialects() throws {
        let samples: [(String, String)] = [("Flag", "false"), ("Big", "-42"), ("Price", "-0.01"), ("Name", #""Grüße""#),
                                           ("Day", #""1999-12-31""#), ("At", #""2024-01-01T08:00:00.1234567Z""#),
                                           ("Span", #""-PT1M""#), ("Data", #""AQID""#)]
        for (name, json) in samples {
            let value = try stored(json, name)
            let back = try written(value, name)
            #expect(try stored(back, name) == value, "\(name)")
        }
    }
}
