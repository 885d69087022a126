import Testing
@_spi(Tool) @testable import OfflineOData

/// What the model keeps: V2 associations as navigation, facets, ETags, media entities,
/// annotations and `sap:` attributes as data, function import signatures.
@Suite(.needsFixtures) struct MetadataModelTests {
    @Test func v2AssociationsBecomeNavigationWithPartnerConstraintsAndBindings() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("oasis-odata-csdl-schemas/test-v2-v3/ReferentialConstraint-v2.xml")))
        var constrained: [NavigationProperty] = []
        for schema in model.schemas {
            for type in schema.entityTypes {
                for navigation in type.navigationProperties {
                    #expect(navigation.type.kind == .entity)
                    #expect(navigation.association != nil)
                    #expect(model.entityType(named: navigation.type.name) != nil)
                    if !navigation.referentialConstraints.isEmpty { constrained.append(navigation) }
                }
            }
        }
        #expect(!constrained.isEmpty)
        for navigation in constrained { #expect(navigation.multiplicity != .many) }  // constraints sit on the dependent side
    }

    @Test func v2ODataDemoNavigationHasMultiplicityPartnerAndTargetSet() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("oasis-odata-openapi/odata-rw-v2.xml")))
        let product = try #require(model.entityType(named: "ODataDemo.Product"))
        let category = try #require(model.navigationProperty("Category", of: product))
        #expect(category.multiplicity == .zeroOrOne && category.type.name == "ODataDemo.Category" && !category.type.isCollection)
        #expect(category.partner == "Products")
        let categoryType = try #require(model.entityType(named: "ODataDemo.Category"))
        let products = try #require(model.navigationProperty("Products", of: categoryType))
        #expect(products.multiplicity == .many && products.type.isCollection)
        #expect(model.entitySet(named: "Products")?.bindingTarget(forPath: "Category") == "Categories")
        let supplier = try #require(model.entityType(named: "ODataDemo.Supplier"))
        #expect(model.property("Concurrency", of: supplier)?.isConcurrencyToken == true)
        #expect(model.keyProperties(of: product).map(\.name) == ["ID"])
        let import_ = try #require(model.functionImport(named: "GetProductsByRating"))
        #expect(import_.httpMethod == "GET" && import_.returnType?.description == "Collection(ODataDemo.Product)")
        #expect(import_.parameters.map(\.name) == ["rating"] && import_.parameters.first?.type.kind == .primitive(.int32))
        #expect(import_.entitySet == "Products")
    }

    @Test func facetsAreParsed() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("sap-cloud-sdk-js/v2-API_TEST_SRV.edmx")))
        let type = try #require(model.entityType(named: "API_TEST_SRV.A_TestEntityType"))
        let string = try #require(type.property(named: "StringProperty"))
        #expect(string.facets.maxLength == .length(10) && string.facets.isNullable)
        let decimal = try #require(type.property(named: "DecimalProperty"))
        #expect(decimal.facets.precision == 5 && decimal.facets.scale == .digits(2))
        #expect(type.property(named: "KeyPropertyGuid")?.isNullable == false)
        #expect(model.keyProperties(of: type).map(\.name) == ["KeyPropertyGuid", "KeyPropertyString"])
        #expect(string.sapAttribute("display-format") == "UpperCase")
    }

    @Test func mediaEntitiesAreMarked() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("oasis-odata-openapi/media-entities-v2.xml")))
        let types = model.schemas.flatMap(\.entityTypes)
        #expect(types.contains { $0.hasStream })
    }

    @Test func v4AnnotationsAreKeptAsData() throws {
        let model = try MetadataReader.read(try #require(Fixtures.bytes("oasis-odata-openapi/TripPin.xml")))
        let person = try #require(model.entityType(named: "Microsoft.OData.SampleService.Models.TripPin.Person"))
        let concurrency = try #require(person.property(named: "Concurrency"))
        let computed = try #require(concurrency.annotations.first)
        #expect(computed.term == "Org.OData.Core.V1.Computed")
        #expect(computed.value == AnnotationExpression(kind: "Bool", value: "true"))
        let people = try #require(model.entitySet(named: "People"))
        #expect(!people.annotations.isEmpty)
        #expect(model.schemas.first?.annotationGroups.isEmpty == false || !people.annotations.isEmpty)
    }

    @Test func aUTF8ByteOrderMarkIsAccepted() throws {
        let bytes = try #require(Fixtures.bytes("simple-odata-client/Northwind3-with-FunctionImports.xml"))
        #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let model = try MetadataReader.read(bytes)
        #expect(model.counts.entitySets == 12)
    }

    @Test func foreignElementsAreSkippedAndTheirNamespaceDoesNotMatter() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
                xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xmlns:sap="http://www.sap.com/Protocols/SAPData">
            <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="RMTSAMPLEFLIGHT" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" sap:schema-version="1">
            <EntityType Name="Travelagency" sap:label="Agency" xmlns:gp="http://www.sap.com/gp">
            <Key><PropertyRef Name="agencynum"/></Key>
            <Property Name="agencynum" Type="Edm.String" Nullable="false" MaxLength="8" sap:label="Agency No."/>
            <gp:Whatever><Property Name="ignored" Type="NS.Nowhere"/></gp:Whatever>
            <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="self" href="http://example.com/"/>
            </EntityType>
            <EntityContainer Name="RMTSAMPLEFLIGHT_Entities" m:IsDefaultEntityContainer="true">
            <EntitySet Name="TravelagencyCollection" EntityType="RMTSAMPLEFLIGHT.Travelagency" sap:creatable="false"/>
            </EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try MetadataReader.read(text)
        #expect(model.version == .v2)
        let agency = try #require(model.entityType(ofEntitySet: "TravelagencyCollection"))
        #expect(agency.qualifiedName == "RMTSAMPLEFLIGHT.Travelagency")
        #expect(agency.properties.map(\.name) == ["agencynum"])
        #expect(agency.sapAttribute("label") == "Agency")
        #expect(agency.properties.first?.sapAttribute("label") == "Agency No.")
        #expect(model.entitySet(named: "TravelagencyCollection")?.sapAttribute("creatable") == "false")
        #expect(model.entityContainer?.isDefault == true)
    }

    @Test func externalEntitiesAreNeverFetched() throws {
        // An external entity: the document is refused for its DOCTYPE (issue 39), before
        // anything could be fetched or expanded.
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE edmx:Edmx [<!ENTITY remote SYSTEM "http://127.0.0.1:9/never">]>
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS"><ComplexType Name="A"/></Schema>
            </edmx:DataServices></edmx:Edmx>
            """
        #expect(throws: ODataError.self) { try MetadataReader.read(text) }
    }
}
