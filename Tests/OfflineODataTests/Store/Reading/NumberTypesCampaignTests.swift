import Testing
@_spi(Tool) @testable import OfflineOData

/// Issue 40's classes on every numeric type, not only Double and Int32: a model of its own with a
/// Single, a Byte, an SByte, an Int16, an Int64 and a Decimal property, and generated requests
/// whose answers are worked out here from the URL Conventions' rules: IEEE 754 for Single as for
/// Double; `div` and `mod` by zero fail for integers and decimals, `mod` by zero for Single too;
/// `divby` zero gives INF, -INF or NaN whatever the type; casts to narrower types null when the
/// value does not fit.
@Suite struct NumberTypesCampaignTests {
    static let metadata = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
      <edmx:DataServices>
        <Schema Namespace="Test" xmlns="http://docs.oasis-open.org/odata/ns/edm">
          <EntityType Name="Agency">
            <Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="Ratio" Type="Edm.Single"/>
            <Property Name="U8" Type="Edm.Byte"/>
            <Property Name="I8" Type="Edm.SByte"/>
            <Property Name="I16" Type="Edm.Int16"/>
            <Property Name="Big" Type="Edm.Int64"/>
            <Property Name="Amount" Type="Edm.Decimal" Scale="variable"/>
          </EntityType>
          <EntityContainer Name="Container"><EntitySet Name="Agencies" EntityType="Test.Agency"/></EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

    /// Per row: Ratio, U8, I8, I16, Big, Amount (nil for null).
    static let rows: [(Double?, Int64?, Int64?, Int64?, Int64?, String?)] = [
        (1.5, 0, -128, -32768, Int64.min, "-3.25"),
        (-2.5, 255, 127, 32767, Int64.max, "0"),
        (0, 7, 0, 0, 0, "1e3"),
        (.infinity, 1, -1, 300, 5_000_000_000, "0.001"),
        (.nan, 42, 5, -7, -9, "-0.5"),
        (3.4e38, nil, nil, nil, nil, nil),
        (nil, 100, -100, 1000, 1, "12345678901234567890.5"),
    ]

    let store: ReadTestStore

    init() throws {
        store = try ReadTestStore(metadata: Self.metadata)
        for (index, row) in Self.rows.enumerated() {
            let amount = row.5.flatMap(ExactDecimal.init).map { SQLValue.text($0.description) } ?? .null
            try store.insert("Agencies", [("ID", .integer(Int64(index + 1))), ("Ratio", row.0.map(SQLValue.real) ?? .null),
                                          ("U8", row.1.map(SQLValue.integer) ?? .null), ("I8", row.2.map(SQLValue.integer) ?? .null),
                                          ("I16", row.3.map(SQLValue.integer) ?? .null), ("Big", row.4.map(SQLValue.integer) ?? .null),
                                          ("Amount", amount)])
        }
    }

    func ids(_ filter: String) throws -> [Int64] { try store.ids("Agencies?$filter=" + urlEncoded(filter)) }

    func failure(_ filter: String) -> ODataError? { store.error("Agencies?$filter=" + urlEncoded(filter)) }

    /// The value of column `name` in each row, as a double (Amount through its text).
    static func values(_ name: String) -> [Double?] {
        rows.map { row in
            switch name {
            case "Ratio": row.0
            case "U8": row.1.map(Double.init)
            case "I8": row.2.map(Double.init)
            case "I16": row.3.map(Double.init)
            case "Big": row.4.map(Double.init)
            default: row.5.flatMap { Double($0) }
            }
        }
    }

    static func matching(_ name: String, _ test: (Double) -> Bool) -> [Int64] {
        values(name).enumerated().compactMap { index, value in value.map(test) == true ? Int64(index + 1) : nil }
    }

    @Test func divbyZeroIsINFOrNaNForEveryNumericType() throws {
        for name in ["Ratio", "U8", "I8", "I16", "Big", "Amount"] {
            #expect(try ids("\(name) divby 0 eq INF") == Self.matching(name) { $0 > 0 }, "\(name)")
            #expect(try ids("\(name) divby 0 eq -INF") == Self.matching(name) { $0 < 0 }, "\(name)")
            // Zero divby zero (and NaN divby zero) is NaN: equal to nothing, shown as 'NaN'.
            #expect(try ids("cast(\(name) divby 0,Edm.String) eq 'NaN'") == Self.matching(name) { $0 == 0 || $0.isNaN }, "\(name)")
            // INF equals INF; NaN nothing; null equals null.
            #expect(try ids("\(name) divby 0 eq \(name) divby 0") == (Self.matching(name) { $0 != 0 && !$0.isNaN } + Self.nullRows(name)).sorted(), "\(name)")
        }
    }

    static func nullRows(_ name: String) -> [Int64] {
        values(name).enumerated().compactMap { index, value in value == nil ? Int64(index + 1) : nil }
    }

    @Test func divAndModByZeroFailOrGiveINFAsTheTypeSays() throws {
        for name in ["U8", "I8", "I16", "Big", "Amount"] {
            for op in ["div", "mod"] {
                let error = failure("\(name) \(op) 0 eq 1")
                #expect(error?.code == .semantic && error?.message.contains("division by zero") == true, "\(name) \(op): \(String(describing: error))")
            }
        }
        let error = failure("Ratio mod 0 eq 1")
        #expect(error?.code == .semantic && error?.message.contains("division by zero") == true, "\(String(describing: error))")
        #expect(try ids("Ratio div 0 eq INF") == Self.matching("Ratio") { $0 > 0 })
        #expect(try ids("Ratio div 0 lt 0") == Self.matching("Ratio") { $0 < 0 })
        #expect(try ids("Ratio eq NaN or Ratio eq Ratio and Ratio ne null") == Self.matching("Ratio") { !$0.isNaN })
    }

    @Test func integerArithmeticOverflowsOnlyBeyondInt64() throws {
        // Narrow types compute in 64 bits: 255 * 32767 * 127 fits.
        #expect(try ids("U8 mul I16 mul I8 eq 1061159295") == [2])
        #expect(try ids("I16 sub I8 add U8 eq 32895") == [2])
        for (filter, op) in [("Big add 1 gt 0", "add"), ("Big sub 1 lt 0", "sub"), ("Big mul 2 ne 0", "mul"), ("-Big gt 0", "sub"),
                             ("Big div -1 gt 0", "div")] {
            let error = failure(filter)
            #expect(error?.code == .semantic && error?.message.contains("integer overflow in '\(op)'") == true, "\(filter): \(String(describing: error))")
        }
        #expect(try ids("Big mod -1 eq 0") == [1, 2, 3, 4, 5, 7])
    }

    @Test func castsToNarrowerTypesAreNullWhenTheyDoNotFit() throws {
        let targets: [(String, ClosedRange<Double>)] = [("Byte", 0...255), ("SByte", -128...127), ("Int16", -32768...32767),
                                                        ("Int32", -2_147_483_648...2_147_483_647)]
        for name in ["U8", "I8", "I16", "Big", "Amount", "Ratio"] {
            for (target, range) in targets {
                // Towards zero first; null when the whole part does not fit (or there is none: INF, NaN).
                let expected = Self.values(name).enumerated().compactMap { index, value -> Int64? in
                    guard let value else { return Int64(index + 1) }
                    let whole = value.rounded(.towardZero)
                    return whole.isFinite && range.contains(whole) ? nil : Int64(index + 1)
                }
                #expect(try ids("cast(\(name),Edm.\(target)) eq null") == expected, "\(name) → \(target)")
            }
        }
        // Single holds about 3.4e38: 3.4e38 fits, Int64.max as a Single does too; a Double beyond does not.
        #expect(try ids("cast(Ratio,Edm.Single) eq null") == [7])
        #expect(try ids("cast(cast(Ratio,Edm.Double) mul 10,Edm.Single) eq null") == [6, 7])
    }
}
