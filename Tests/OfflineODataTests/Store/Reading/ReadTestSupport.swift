import Testing
@_spi(Tool) @testable import OfflineOData

/// A small V4 model with every shape the reader handles: decimals, instants, dates, a complex
/// property, a collection, an enum, a derived type, a composite key, navigation with a referential
/// constraint (both directions) and one without (through `ood_link`), and a function import.
let readTestMetadataV4 = """
<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="Test" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EnumType Name="Color"><Member Name="Red" Value="1"/><Member Name="Green" Value="2"/><Member Name="Blue" Value="4"/></EnumType>
      <ComplexType Name="Address"><Property Name="Street" Type="Edm.String"/><Property Name="City" Type="Edm.String"/></ComplexType>
      <EntityType Name="Agency">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="City" Type="Edm.String"/>
        <Property Name="Rating" Type="Edm.Int32"/>
        <Property Name="Revenue" Type="Edm.Decimal" Scale="variable"/>
        <Property Name="Score" Type="Edm.Double"/>
        <Property Name="Big" Type="Edm.Int64"/>
        <Property Name="Active" Type="Edm.Boolean"/>
        <Property Name="Founded" Type="Edm.DateTimeOffset"/>
        <Property Name="Opened" Type="Edm.Date"/>
        <Property Name="Color" Type="Test.Color"/>
        <Property Name="Address" Type="Test.Address"/>
        <Property Name="Tags" Type="Collection(Edm.String)"/>
        <NavigationProperty Name="Bookings" Type="Collection(Test.Booking)" Partner="Agency"/>
      </EntityType>
      <EntityType Name="SpecialAgency" BaseType="Test.Agency">
        <Property Name="Perk" Type="Edm.String"/>
      </EntityType>
      <EntityType Name="Booking">
        <Key><PropertyRef Name="AgencyID"/><PropertyRef Name="Number"/></Key>
        <Property Name="AgencyID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Number" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Customer" Type="Edm.String"/>
        <Property Name="Amount" Type="Edm.Decimal" Scale="variable"/>
        <NavigationProperty Name="Agency" Type="Test.Agency" Partner="Bookings">
          <ReferentialConstraint Property="AgencyID" ReferencedProperty="ID"/>
        </NavigationProperty>
        <NavigationProperty Name="Items" Type="Collection(Test.Item)"/>
      </EntityType>
      <EntityType Name="Item">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.String" Nullable="false"/>
        <Property Name="Label" Type="Edm.String"/>
      </EntityType>
      <Function Name="TopAgencies"><ReturnType Type="Collection(Test.Agency)"/></Function>
      <EntityContainer Name="Container">
        <EntitySet Name="Agencies" EntityType="Test.Agency">
          <NavigationPropertyBinding Path="Bookings" Target="Bookings"/>
        </EntitySet>
        <EntitySet Name="Bookings" EntityType="Test.Booking">
          <NavigationPropertyBinding Path="Agency" Target="Agencies"/>
          <NavigationPropertyBinding Path="Items" Target="Items"/>
        </EntitySet>
        <EntitySet Name="Items" EntityType="Test.Item"/>
        <FunctionImport Name="TopAgencies" Function="Test.TopAgencies" EntitySet="Agencies"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""

/// A store in memory with the test model's tables and a reader over it.
final class ReadTestStore {
    let model: MetadataModel
    let schema: StoreSchema
    let db: SQLiteConnection
    let reader: LocalReader

    init(metadata: String = readTestMetadataV4, dialect: Dialect = .v4, root: String = "http://host/service/") throws {
        model = try MetadataReader.read(metadata)
        schema = try StoreSchema(model: model)
        db = try SQLiteConnection(path: ":memory:", create: true)
        for migration in StoreFormat.migrations { try db.execute(migration) }
        for statement in schema.createStatements { try db.execute(statement) }
        reader = LocalReader(model: model, schema: schema, dialect: dialect, serviceRoot: root)
    }

    /// Inserts a row; `values` maps column names (`Address/City`) to stored values.
    func insert(_ set: String, _ values: [(String, SQLValue)], change: String? = nil, type: String? = nil, etag: String? = nil) throws {
        guard let table = schema.table(forEntitySet: set) else { throw ODataError(.misuse, "no set \(set)") }
        var names = try values.map { try table.quotedColumnName($0.0) }
        var parameters = values.map(\.1)
        for (name, value) in [("_ood_change", change), ("_ood_type", type), ("_ood_etag", etag)] {
            if let value {
                names.append(quoteIdentifier(name))
                parameters.append(.text(value))
            }
        }
        let placeholders = parameters.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let statement = try db.prepare("INSERT INTO \(table.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders))")
        try statement.run(parameters)
    }

    func link(_ sourceSet: String, _ sourceID: Int64, _ navigation: String, _ targetSet: String, _ targetID: Int64) throws {
        let statement = try db.prepare("INSERT INTO ood_link (source_set, source_id, navigation, target_set, target_id) VALUES (?1, ?2, ?3, ?4, ?5)")
        try statement.run([.text(sourceSet), .integer(sourceID), .text(navigation), .text(targetSet), .integer(targetID)])
    }

    func read(_ url: String) throws -> JSONValue {
        try JSONValue.parse(reader.read(url: url, on: db).body)
    }

    func raw(_ url: String) throws -> ReadResult { try reader.read(url: url, on: db) }

    /// The values of `property` of the entities a V4 collection read returns, in order.
    func values(_ url: String, _ property: String = "ID") throws -> [JSONValue] {
        try read(url)["value"]?.arrayValue?.map { $0[property] ?? .null } ?? []
    }

    func ids(_ url: String) throws -> [Int64] {
        try values(url).compactMap(\.int64Value)
    }

    /// The IDs of the agencies `Agencies?$filter=<filter>` returns; a failed read is recorded as
    /// the test's issue (at the caller's line) and returns none.
    func agencyIDs(filter: String, sourceLocation: SourceLocation) -> [Int64] {
        do {
            return try ids("Agencies?$filter=" + filter)
        } catch {
            Issue.record("\(filter): \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    func error(_ url: String) -> ODataError? {
        do {
            _ = try reader.read(url: url, on: db)
            return nil
        } catch {
            return error
        }
    }
}

/// Names of the sample agencies, by ID, for expectations computed in Swift.
let sampleAgencyNames: [Int64: String] = [1: "Alpha", 2: "Beta", 3: "O'Brien & Co", 4: "Agency 100%", 5: "Agency_x0", 6: "Ünïcødé", 8: "Local"]

extension ReadTestStore {
    /// Agencies 1-8 (7 deleted offline, 8 created offline as a SpecialAgency), bookings, items, links.
    static func sample(dialect: Dialect = .v4) throws -> ReadTestStore {
        let store = try ReadTestStore(dialect: dialect)
        try store.insert("Agencies", [("ID", .integer(1)), ("Name", .text("Alpha")), ("City", .text("Rome")), ("Rating", .integer(5)),
                                      ("Revenue", .text("9.5")), ("Score", .real(1.5)), ("Big", .integer(9_007_199_254_740_993)),
                                      ("Active", .integer(1)), ("Founded", .text("2020-01-01T00:00:00.0000000Z")), ("Opened", .text("2020-01-01")),
                                      ("Color", .text("Red")), ("Address/Street", .text("Via 1")), ("Address/City", .text("Rome")),
                                      ("Tags", .text("[\"a\",\"b\"]"))], etag: "W/\"1\"")
        try store.insert("Agencies", [("ID", .integer(2)), ("Name", .text("Beta")), ("City", .text("rome")), ("Rating", .integer(3)),
                                      ("Revenue", .text("10")), ("Score", .real(-2.5)), ("Big", .integer(-7)), ("Active", .integer(0)),
                                      ("Founded", .text("2019-12-31T23:30:00.0000000Z")), ("Opened", .text("2019-06-15")),
                                      ("Color", .text("Green")), ("Tags", .text("[]"))])
        try store.insert("Agencies", [("ID", .integer(3)), ("Name", .text("O'Brien & Co"))])
        try store.insert("Agencies", [("ID", .integer(4)), ("Name", .text("Agency 100%")), ("City", .text("Paris")), ("Rating", .integer(4)),
                                      ("Revenue", .text("100.25")), ("Score", .real(2.5)), ("Color", .text("Blue")), ("Tags", .text("[\"c\"]"))])
        try store.insert("Agencies", [("ID", .integer(5)), ("Name", .text("Agency_x0")), ("City", .text("Berlin")), ("Rating", .integer(1)),
                                      ("Revenue", .text("-3")), ("Score", .real(0.5))])
        try store.insert("Agencies", [("ID", .integer(6)), ("Name", .text("Ünïcødé")), ("City", .text("Zürich")), ("Rating", .integer(2)),
                                      ("Revenue", .text("0.001"))])
        try store.insert("Agencies", [("ID", .integer(7)), ("Name", .text("Deleted")), ("City", .text("Rome"))], change: "deleted")
        try store.insert("Agencies", [("ID", .integer(8)), ("Name", .text("Local")), ("City", .text("Oslo")), ("Perk", .text("gym"))],
                         change: "created", type: "Test.SpecialAgency")
        let bookings: [(Int64, Int64, String, String, String?)] = [(1, 1, "x", "5.5", nil), (1, 2, "y", "20", nil), (2, 1, "z", "7", nil),
                                                                    (4, 1, "w", "1", nil), (1, 3, "gone", "99", "deleted")]
        for (agency, number, customer, amount, change) in bookings {
            try store.insert("Bookings", [("AgencyID", .integer(agency)), ("Number", .integer(number)), ("Customer", .text(customer)),
                                          ("Amount", .text(amount))], change: change)
        }
        try store.insert("Items", [("ID", .text("i1")), ("Label", .text("one"))])
        try store.insert("Items", [("ID", .text("i2")), ("Label", .text("two"))])
        try store.link("Bookings", 1, "Items", "Items", 1)
        try store.link("Bookings", 1, "Items", "Items", 2)
        return store
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters, as a careful client does.
func urlEncoded(_ text: String) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    for byte in text.utf8 {
        let unreserved = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        if unreserved { bytes.append(byte) } else { bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
    }
    return String(decoding: bytes, as: UTF8.self)
}
