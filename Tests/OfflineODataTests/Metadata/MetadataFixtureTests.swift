import Testing
@_spi(Tool) @testable import OfflineOData

/// Every `$metadata` document among the shared fixtures is read, and the element counts of the
/// documents below match counts taken independently (Python `xml.etree`, counting elements by
/// local name in the CSDL namespaces; see the commit that added this file).
@Suite(.needsFixtures) struct MetadataFixtureTests {
    /// All `$metadata` documents of the fixtures (`grep -l -i edmx -r`, minus the counterexamples,
    /// the XSDs and the ABNF files of jaystack-odata-v4-parser, which only mention EDMX).
    static let documents = [
        "apache-olingo-odata2/metadataForDeepInsert.xml",
        "apache-olingo-odata2/metadataForRelatedEntity.xml",
        "apache-olingo-odata2/metadataProducts.xml",
        "apache-olingo-odata2/metadataWithNavigations.xml",
        "apache-olingo-odata2/refScenario.edmx",
        "apache-olingo-odata4/client-core/annotations-vocab-metadata.xml",
        "apache-olingo-odata4/client-core/demo-metadata.xml",
        "apache-olingo-odata4/client-core/metadata_TripInService.xml",
        "apache-olingo-odata4/client-core/northwind-metadata.xml",
        "apache-olingo-odata4/odatawcfservice/metadata.xml",
        "apache-olingo-odata4/trippin/trippin.xml",
        "msgraph-metadata/v1.0-Prod.csdl.xml",
        "oasis-odata-csdl-schemas/examples/csdl-16.1.xml",
        "oasis-odata-csdl-schemas/examples/csdl-16.2.xml",
        "oasis-odata-csdl-schemas/examples/miscellaneous.xml",
        "oasis-odata-csdl-schemas/examples/miscellaneous2.xml",
        "oasis-odata-csdl-schemas/examples/special-characters.xml",
        "oasis-odata-csdl-schemas/test-v2-v3/ReferentialConstraint-v2.xml",
        "oasis-odata-csdl-schemas/test-v2-v3/documentation-v2.xml",
        "oasis-odata-csdl-schemas/test-v2-v3/odata-rw-v2.xml",
        "oasis-odata-csdl-schemas/test-v2-v3/odata-rw-v3.xml",
        "oasis-odata-csdl-schemas/test-v2-v3/v2-annotations.xml",
        "oasis-odata-openapi/Northwind-V3.xml",
        "oasis-odata-openapi/Northwind.xml",
        "oasis-odata-openapi/TripPin.xml",
        "oasis-odata-openapi/addressable-v2.xml",
        "oasis-odata-openapi/annotations-v2.xml",
        "oasis-odata-openapi/keys-v4.01.xml",
        "oasis-odata-openapi/media-entities-v2.xml",
        "oasis-odata-openapi/odata-rw-v2.xml",
        "oasis-odata-openapi/odata-rw-v3.xml",
        "sap-cloud-sdk-js/v2-API_TEST_SRV.edmx",
        "sap-cloud-sdk-js/v4-API_TEST_SRV.edmx",
        "sap-cloud-sdk-js/v4-e2e-TestService.edmx",
        "sap-python-pyodata/metadata-EXAMPLE_SRV-v2.xml",
        "sap-python-pyodata/metadata_odata_org_northwind_v2.xml",
        "simple-odata-client/DynamicsCRM.xml",
        "simple-odata-client/Northwind3-with-FunctionImports.xml",
        "simple-odata-client/Russian-1C-V3.xml",
        "teiid/northwind-v2-with-added-FunctionImports.xml",
    ]

    @Test(arguments: documents)
    func readsEveryFixtureDocument(_ path: String) throws {
        let bytes = try #require(Fixtures.bytes(path), "fixture \(path) is missing")
        do {
            let model = try MetadataReader.read(bytes)
            #expect(!model.schemas.isEmpty)
        } catch {
            Issue.record("\(path): \(error)")
        }
    }
}
