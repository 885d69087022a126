import Testing
@_spi(Tool) @testable import OfflineOData

/// Element counts of fixture documents against counts taken independently of this reader:
/// Python's `xml.etree`, counting elements by local name in the CSDL namespaces, e.g.
/// `sum(1 for e in root.iter() if e.tag.endswith('}EntityType'))`.
@Suite(.needsFixtures) struct MetadataCountTests {
    struct Expected: Sendable, CustomStringConvertible {
        var path: String
        var version: ODataVersion
        var entityTypes: Int
        var complexTypes: Int
        var enumTypes: Int
        var entitySets: Int
        var singletons = 0
        var functionImports = 0
        var actionImports = 0
        var functions = 0
        var actions = 0
        var description: String { path }
    }

    static let expectations: [Expected] = [
        Expected(path: "msgraph-metadata/v1.0-Prod.csdl.xml", version: .v4, entityTypes: 1182, complexTypes: 1779,
                 enumTypes: 861, entitySets: 41, singletons: 31, functions: 326, actions: 857),
        Expected(path: "simple-odata-client/DynamicsCRM.xml", version: .v4, entityTypes: 265, complexTypes: 132, enumTypes: 33,
                 entitySets: 237, functionImports: 50, actionImports: 79, functions: 166, actions: 139),
        Expected(path: "oasis-odata-openapi/TripPin.xml", version: .v4, entityTypes: 9, complexTypes: 4, enumTypes: 1,
                 entitySets: 4, singletons: 1, functionImports: 1, actionImports: 1, functions: 4, actions: 2),
        Expected(path: "apache-olingo-odata4/odatawcfservice/metadata.xml", version: .v4, entityTypes: 22, complexTypes: 4,
                 enumTypes: 3, entitySets: 12, singletons: 6, functionImports: 6, actionImports: 4, functions: 13, actions: 9),
        Expected(path: "oasis-odata-openapi/Northwind.xml", version: .v4, entityTypes: 26, complexTypes: 0, enumTypes: 0,
                 entitySets: 26),
        Expected(path: "oasis-odata-csdl-schemas/examples/miscellaneous.xml", version: .v401, entityTypes: 22, complexTypes: 21,
                 enumTypes: 6, entitySets: 10, singletons: 2, functionImports: 3, actionImports: 1, functions: 5, actions: 2),
        Expected(path: "sap-cloud-sdk-js/v4-e2e-TestService.edmx", version: .v4, entityTypes: 4, complexTypes: 1, enumTypes: 0,
                 entitySets: 4, functionImports: 8, actionImports: 3, functions: 13, actions: 6),
        Expected(path: "apache-olingo-odata2/refScenario.edmx", version: .v2, entityTypes: 22, complexTypes: 2, enumTypes: 0,
                 entitySets: 21, functionImports: 7),
        Expected(path: "sap-cloud-sdk-js/v2-API_TEST_SRV.edmx", version: .v2, entityTypes: 12, complexTypes: 3, enumTypes: 0,
                 entitySets: 14, functionImports: 15),
        Expected(path: "sap-python-pyodata/metadata-EXAMPLE_SRV-v2.xml", version: .v2, entityTypes: 14, complexTypes: 4,
                 enumTypes: 2, entitySets: 14, functionImports: 6),
        Expected(path: "simple-odata-client/Russian-1C-V3.xml", version: .v3, entityTypes: 94, complexTypes: 43, enumTypes: 45,
                 entitySets: 94, functionImports: 4),
        Expected(path: "teiid/northwind-v2-with-added-FunctionImports.xml", version: .v1, entityTypes: 26, complexTypes: 1,
                 enumTypes: 0, entitySets: 26, functionImports: 3),
        Expected(path: "oasis-odata-openapi/odata-rw-v3.xml", version: .v3, entityTypes: 10, complexTypes: 1, enumTypes: 0,
                 entitySets: 7, functionImports: 3),
        Expected(path: "simple-odata-client/Northwind3-with-FunctionImports.xml", version: .v1, entityTypes: 14, complexTypes: 1,
                 enumTypes: 1, entitySets: 12, functionImports: 7),
    ]

    @Test(arguments: expectations)
    func countsMatchAnIndependentCount(_ expected: Expected) throws {
        let bytes = try #require(Fixtures.bytes(expected.path))
        let model = try MetadataReader.read(bytes)
        let counts = model.counts
        #expect(model.version == expected.version)
        #expect(counts.entityTypes == expected.entityTypes)
        #expect(counts.complexTypes == expected.complexTypes)
        #expect(counts.enumTypes == expected.enumTypes)
        #expect(counts.entitySets == expected.entitySets)
        #expect(counts.singletons == expected.singletons)
        #expect(counts.functionImports == expected.functionImports)
        #expect(counts.actionImports == expected.actionImports)
        #expect(counts.functions == expected.functions)
        #expect(counts.actions == expected.actions)
    }

    @Test func graphIsReadWithItsAliasResolved() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("msgraph-metadata/v1.0-Prod.csdl.xml")))
        #expect(model.namespaces.contains("microsoft.graph"))
        // `graph.user` (alias) and `microsoft.graph.user` name the same type.
        let user = try #require(model.entityType(named: "graph.user"))
        #expect(user.qualifiedName == "microsoft.graph.user")
        #expect(model.keyProperties(of: user).map(\.name) == ["id"])  // inherited from microsoft.graph.entity
        let users = try #require(model.entitySet(named: "users"))
        #expect(users.entityType == "microsoft.graph.user")
        #expect(model.singleton(named: "me")?.type == "microsoft.graph.user")
    }
}
