@testable import OfflineOData

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
        var names = values.map { quoteIdentifier($0.0) }
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

    func error(_ url: String) -> ODataError? {
        do {
            _ = try reader.read(url: url, on: db)
            return nil
        } catch {
            return error
        }
    }
}
