import Testing
@_spi(Tool) @testable import OfflineOData

/// Alternate keys (issue 37, point 4): where the model declares them (`Core.AlternateKeys`), what
/// the app declares, and the read that looks a create up by one.
@Suite struct AlternateKeysTests {
    /// `Core.AlternateKeys` with one key of `paths`, as the vocabulary spells it.
    static func annotation(_ paths: [String], term: String = "Org.OData.Core.V1.AlternateKeys") -> String {
        let parts = paths.map { #"<Record><PropertyValue Property="Alias" String="\#($0)"/><PropertyValue Property="Name" PropertyPath="\#($0)"/></Record>"# }
        return #"<Annotation Term="\#(term)"><Collection><Record><PropertyValue Property="Key"><Collection>"#
            + parts.joined() + "</Collection></PropertyValue></Record></Collection></Annotation>"
    }

    @Test func theModelDeclaresAlternateKeysOnTheSetOrItsType() throws {
        let plain = try MetadataReader.read(LocalWriterTests.metadata)
        #expect(plain.alternateKeys(entitySet: "TravelagencyCollection").isEmpty)
        // On the entity set, inline.
        let inline = try MetadataReader.read(LocalWriterTests.metadata.replacingFirst(
            #"<EntitySet Name="TravelagencyCollection" EntityType="RMTSAMPLEFLIGHT.Travelagency">"#,
            with: #"<EntitySet Name="TravelagencyCollection" EntityType="RMTSAMPLEFLIGHT.Travelagency">"# + Self.annotation(["name", "city"])))
        #expect(inline.alternateKeys(entitySet: "TravelagencyCollection") == [["name", "city"]])
        #expect(inline.alternateKeys(entitySet: "FlightCollection").isEmpty)
        // On the entity type, in an out-of-line block, the term by its alias.
        let outOfLine = try MetadataReader.read(LocalWriterTests.metadata.replacingFirst("</EntityContainer>", with: """
            </EntityContainer>
            <Annotations Target="RMTSAMPLEFLIGHT.Travelagency">\(Self.annotation(["url"], term: "Core.AlternateKeys"))</Annotations>
            """).replacingFirst("<edmx:DataServices>", with: """
            <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml">
            <edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference><edmx:DataServices>
            """))
        #expect(outOfLine.alternateKeys(entitySet: "TravelagencyCollection") == [["url"]])
    }

    @Test func theAppsDeclarationsReadBackAndComeFirst() throws {
        let declared = ["TravelagencyCollection": [["name", "country"]], "FlightCollection": [["carrid"]]]
        #expect(AlternateKeys.parse(AlternateKeys.text(declared)) == declared)
        #expect(AlternateKeys.parse("no equals sign\n=\nSet=").isEmpty)
    }

    @Test func theLookUpQueryQuotesAndEncodesTheValues() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("keys.store"), metadata: LocalWriterTests.metadata, definingRequests: [],
                                          serviceRoot: "http://127.0.0.1:1/")
        defer { store.close() }
        let table = try #require(store.schema.table(forEntitySet: "TravelagencyCollection"))
        let name = try #require(table.column(named: "name"))
        let country = try #require(table.column(named: "country"))
        let query = AlternateKeys.query([(.text("O'Neil & Sons+1"), name), (.text("NO"), country)], of: table, dialect: .v4)
        #expect(query == "TravelagencyCollection?$filter=name%20eq%20'O''Neil%20%26%20Sons%2B1'%20and%20country%20eq%20'NO'&$top=2")
        _ = try store.setAlternateKey(["name"], entitySet: "TravelagencyCollection")
        #expect(try store.alternateKeys() == ["TravelagencyCollection": [["name"]]])
        #expect(throws: ODataError.self) { try store.setAlternateKey(["nosuch"], entitySet: "TravelagencyCollection") }
        #expect(try store.setAlternateKey([], entitySet: "TravelagencyCollection").isEmpty)
    }
}
