import Testing
@_spi(Tool) @testable import OfflineOData

@Suite(.needsFixtures) struct StoreSchemaTests {
    private func schema(_ fixture: String) throws -> StoreSchema {
        let bytes = try #require(Fixtures.bytes(fixture))
        return try StoreSchema(model: MetadataReader.read(bytes))
    }

    /// Runs every statement of the schema in a fresh database.
    private func install(_ schema: StoreSchema) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        for statement in schema.createStatements { try db.execute(statement) }
        return db
    }

    @Test func flattensComplexPropertiesAndKeepsCollectionsAsJSON() throws {
        let schema = try schema("apache-olingo-odata4/trippin/trippin.xml")
        let airports = try #require(schema.table(forEntitySet: "Airports"))
        #expect(airports.name == "es/Airports")
        #expect(airports.columns.map(\.name) == ["IcaoCode", "Name", "IataCode", "Location/Address",
                                                  "Location/City/CountryRegion", "Location/City/Name",
                                                  "Location/City/Region", "Location/Loc"])
        #expect(airports.column(path: ["Location", "City", "Name"])?.primitiveType == .string)
        #expect(airports.column(named: "Location/Loc")?.sqlDeclaration == "TEXT")
        #expect(airports.keyColumns.map(\.name) == ["IcaoCode"])

        let people = try #require(schema.table(forEntitySet: "People"))
        #expect(people.column(named: "Emails")?.content == .json)
        #expect(people.column(named: "AddressInfo")?.content == .json)
        #expect(people.column(named: "Gender")?.content == .enumeration(typeName: "Microsoft.OData.SampleService.Models.TripPin.PersonGender"))
        #expect(people.column(named: "Concurrency")?.sqlDeclaration == "INTEGER")
    }

    @Test func storesDecimalsAsTextWithTheNumericCollation() throws {
        let schema = try schema("oasis-odata-openapi/Northwind.xml")
        let products = try #require(schema.table(forEntitySet: "Products"))
        #expect(products.column(named: "UnitPrice")?.sqlDeclaration == "TEXT COLLATE OOD_DECIMAL")
        #expect(products.column(named: "Discontinued")?.sqlDeclaration == "INTEGER")
        #expect(products.foreignKeyColumns.map(\.name).sorted() == ["CategoryID", "SupplierID"])
    }

    @Test func theTablesWorkInSQLite() throws {
        let schema = try schema("apache-olingo-odata4/trippin/trippin.xml")
        let db = try install(schema)
        let people = try #require(schema.table(forEntitySet: "People"))
        let insert = try db.prepare("INSERT INTO \(people.quotedName) (\"UserName\", \"FirstName\") VALUES (?1, ?2)")
        try insert.run([.text("russellwhyte"), .text("Russell")])
        #expect { try insert.run([.text("russellwhyte"), .text("Again")]) } throws: {
            ($0 as? ODataError)?.code == .constraint
        }
        // Entities created offline may have no key yet: NULL keys do not collide.
        try insert.run([.null, .text("Local 1")])
        try insert.run([.null, .text("Local 2")])
        #expect(try db.scalarInt("SELECT count(*) FROM \(people.quotedName)") == 3)
    }

    @Test func derivedTypesAddTheirColumnsToTheSetsTable() throws {
        let schema = try schema("oasis-odata-csdl-schemas/examples/miscellaneous.xml")
        // Every table has each column once, whatever the type hierarchy.
        for table in schema.tables {
            #expect(Set(table.columns.map(\.name)).count == table.columns.count, "\(table.entitySet)")
        }
    }

    @Test(arguments: MetadataFixtureTests.documents)
    func everyFixtureWithAContainerGivesTablesSQLiteAccepts(_ fixture: String) throws {
        let bytes = try #require(Fixtures.bytes(fixture))
        let model = try MetadataReader.read(bytes)
        guard let container = model.entityContainer else { return }
        do {
            let schema = try StoreSchema(model: model)
            #expect(schema.tables.count == container.entitySets.count)
            let db = try install(schema)
            db.close()
        } catch {
            Issue.record("\(fixture): \(error)")
        }
    }

    @Test func aTypeWithoutAKeyGetsATableWithoutKeyIndex() throws {
        let schema = try schema("sap-python-pyodata/metadata-EXAMPLE_SRV-v2.xml")
        let enums = try #require(schema.table(forEntitySet: "EnumTests"))
        #expect(enums.keyColumns.isEmpty)
        #expect(!enums.createStatements.contains { $0.contains("/key") })
        #expect(try schema.table(forEntitySet: "MasterEntities").map { !$0.keyColumns.isEmpty } == true)
    }

    @Test func quotesIdentifiersAndRefusesTheReservedPrefix() throws {
        #expect(quoteIdentifier(#"a"b"#) == #""a""b""#)
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="T"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="_ood_id" Type="Edm.String"/></EntityType>
            <EntityContainer Name="C"><EntitySet Name="Ts" EntityType="N.T"/></EntityContainer></Schema>
            </edmx:DataServices></edmx:Edmx>
            """
        #expect { try StoreSchema(model: MetadataReader.read(document)) } throws: {
            ($0 as? ODataError)?.message.contains("_ood_") == true
        }
    }
}
