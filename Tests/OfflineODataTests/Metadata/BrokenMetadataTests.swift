import Testing
@_spi(Tool) @testable import OfflineOData

/// Documents that must be rejected: the OASIS counterexamples and broken documents of our own,
/// each with the line of the fault and a message that names it. A document is never half accepted.
@Suite(.needsFixtures) struct BrokenMetadataTests {
    /// Reads `text` and returns the error it must raise (recording an issue when it is accepted).
    func rejection(_ text: String, options: MetadataReader.Options = MetadataReader.Options(),
                   sourceLocation: SourceLocation = #_sourceLocation) -> ODataError? {
        do {
            _ = try MetadataReader.read(text, options: options)
            Issue.record("the document was accepted", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == .metadata, sourceLocation: sourceLocation)
            return error
        }
    }

    /// A V4 document whose schema body starts on line 5 (the first line of `body` is line 5).
    func v4(_ body: String, namespace: String = "NS") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
        <edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="\(namespace)">
        \(body)
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """
    }

    static let productType = """
        <EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
        """

    // MARK: OASIS counterexamples

    @Test func counterexampleWithTwoKeysIsRejectedAtTheSecondKey() throws {
        let bytes = try #require(Fixtures.bytes("oasis-odata-csdl-schemas/examples/counterexamples/test1.xml"))
        let error = try #require(rejection(String(decoding: bytes, as: UTF8.self)))
        #expect(error.line == 9)  // test.properties: line 9 (column 14 is the end of that start tag; ours is its start)
        #expect(error.column == 9)
        #expect(error.message.contains("more than one Key"))
    }

    @Test func counterexampleWithANavigationPropertyOfPrimitiveTypeIsRejected() throws {
        let bytes = try #require(Fixtures.bytes("oasis-odata-csdl-schemas/examples/counterexamples/test2.xml"))
        let error = try #require(rejection(String(decoding: bytes, as: UTF8.self)))
        #expect(error.line == 11)  // test.properties: line 11
        #expect(error.column != nil)
        #expect(error.message.contains("LastName") && error.message.contains("Edm.String") && error.message.contains("not an entity type"))
    }

    @Test func counterexampleWithAnEmptyParameterInAnAnnotationTargetIsRejected() throws {
        let bytes = try #require(Fixtures.bytes("oasis-odata-csdl-schemas/examples/counterexamples/annotationtarget1.xml"))
        let error = try #require(rejection(String(decoding: bytes, as: UTF8.self)))
        #expect(error.line == 5)  // test.properties: line 5, column 71 (inside the attribute value)
        #expect(error.column == 20)  // the Target attribute
        #expect(error.message.contains("empty parameter type"))
    }

    // MARK: Our own broken documents

    @Test func truncatedXMLIsRejectedWithLibxml2sPosition() throws {
        let whole = v4(Self.productType)
        let truncated = String(whole.prefix(whole.utf8.count - 40))
        let error = try #require(rejection(truncated))
        #expect(error.message.contains("not well-formed"))
        #expect(error.line != nil && (error.line ?? 0) >= 5)
    }

    @Test func mismatchedTagsAreRejectedWithTheLine() throws {
        let error = try #require(rejection(v4("<EntityType Name=\"A\">\n</ComplexType>")))
        #expect(error.message.contains("not well-formed"))
        #expect(error.line == 6)
    }

    @Test func textThatIsNotXMLIsRejected() throws {
        let error = try #require(rejection("this is not a $metadata document"))
        #expect(error.line == 1)
    }

    @Test func anEmptyDocumentIsRejected() throws {
        let error = try #require(rejection(""))
        #expect(error.message.contains("empty"))
    }

    @Test func aDanglingPropertyTypeIsRejected() throws {
        let error = try #require(rejection(v4("""
            <EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="Price" Type="NS.Money"/>
            </EntityType>
            """)))
        #expect(error.line == 7)
        #expect(error.column == 24)  // Type="..."
        #expect(error.message.contains("Property Price") && error.message.contains("NS.Money") && error.message.contains("not declared"))
    }

    @Test func aDanglingTypeThroughAnAliasIsRejected() throws {
        let error = try #require(rejection("""
            <?xml version="1.0"?>
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Long.Namespace" Alias="LN">
            <ComplexType Name="Address"><Property Name="Street" Type="Collection(LN.Street)"/></ComplexType>
            </Schema></edmx:DataServices></edmx:Edmx>
            """))
        #expect(error.line == 4)
        #expect(error.message.contains("Long.Namespace.Street"))
    }

    @Test func anEntityTypeWithoutAKeyInAnEntitySetIsRejected() throws {
        let error = try #require(rejection(v4("""
            <EntityType Name="Keyless">
            <Property Name="Name" Type="Edm.String"/>
            </EntityType>
            <EntityContainer Name="C"><EntitySet Name="Things" EntityType="NS.Keyless"/></EntityContainer>
            """)))
        #expect(error.line == 5)
        #expect(error.column == 1)
        #expect(error.message.contains("NS.Keyless has no key"))
    }

    @Test func aNavigationToNowhereIsRejected() throws {
        let error = try #require(rejection(v4("""
            <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <NavigationProperty Name="Customer" Type="NS.Customer"/>
            </EntityType>
            """)))
        #expect(error.line == 6)
        #expect(error.message.contains("NavigationProperty Customer") && error.message.contains("NS.Customer"))
    }

    @Test func aV2NavigationThroughAMissingAssociationIsRejected() throws {
        let error = try #require(rejection("""
            <?xml version="1.0"?>
            <edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0">
            <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
            <Schema xmlns="http://schemas.microsoft.com/ado/2008/09/edm" Namespace="NS">
            <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
            <NavigationProperty Name="Customer" Relationship="NS.Order_Customer" FromRole="Order" ToRole="Customer"/>
            </EntityType>
            </Schema></edmx:DataServices></edmx:Edmx>
            """))
        #expect(error.line == 6)
        #expect(error.message.contains("Relationship NS.Order_Customer"))
    }

    @Test func aRootElementOfAWrongNamespaceIsRejected() throws {
        let error = try #require(rejection("""
            <?xml version="1.0"?>
            <edmx:Edmx xmlns:edmx="http://example.com/not-edmx" Version="4.0"><edmx:DataServices/></edmx:Edmx>
            """))
        #expect(error.line == 2)
        #expect(error.message.contains("http://example.com/not-edmx"))
    }

    @Test func aSchemaOfAWrongNamespaceIsRejected() throws {
        let error = try #require(rejection("""
            <?xml version="1.0"?>
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edn" Namespace="NS"/>
            </edmx:DataServices></edmx:Edmx>
            """))
        #expect(error.line == 3)
        #expect(error.message.contains("not a CSDL namespace"))
    }

    @Test func anEntitySetOfAnUnknownTypeIsRejected() throws {
        let error = try #require(rejection(v4(Self.productType + "\n<EntityContainer Name=\"C\">\n<EntitySet Name=\"Products\" EntityType=\"NS.Prodcut\"/>\n</EntityContainer>")))
        #expect(error.line == 7)
        #expect(error.message.contains("EntitySet Products") && error.message.contains("NS.Prodcut"))
    }

    @Test func aBaseTypeCycleIsRejected() throws {
        let error = try #require(rejection(v4("""
            <EntityType Name="A" BaseType="NS.B"/>
            <EntityType Name="B" BaseType="NS.A"/>
            """)))
        #expect(error.line == 5)
        #expect(error.message.contains("inherits from itself"))
    }

    @Test func aTypeDeclaredTwiceIsRejected() throws {
        let error = try #require(rejection(v4(Self.productType + "\n<ComplexType Name=\"Product\"/>")))
        #expect(error.line == 6)
        #expect(error.message.contains("NS.Product is declared twice"))
    }

    /// Entity types are declared before complex types whatever the document's order (the reader's
    /// table of names only notes the duplicate; validation declares and reports it).
    @Test func aTypeDeclaredTwiceIsReportedAtTheDeclarationValidationTakesSecond() throws {
        let error = try #require(rejection(v4("<ComplexType Name=\"Product\"/>\n" + Self.productType)))
        #expect(error.line == 5)
        #expect(error.message.contains("NS.Product is declared twice"))
    }

    @Test func aFacetThatIsNotANumberIsRejected() throws {
        let error = try #require(rejection(v4("""
            <ComplexType Name="Address">
            <Property Name="Street" Type="Edm.String" MaxLength="long"/>
            </ComplexType>
            """)))
        #expect(error.line == 6)
        #expect(error.column == 43)
        #expect(error.message.contains("MaxLength=\"long\""))
    }

    @Test func aFacetThatOverflowsIsAnErrorNotATrap() throws {
        let error = try #require(rejection(v4("<ComplexType Name=\"A\"><Property Name=\"S\" Type=\"Edm.Decimal\" Precision=\"99999999999999999999999\"/></ComplexType>")))
        #expect(error.line == 5)
        #expect(error.message.contains("Precision"))
    }

    @Test func aPropertyWithoutATypeIsRejected() throws {
        let error = try #require(rejection(v4("<ComplexType Name=\"A\">\n<Property Name=\"S\"/>\n</ComplexType>")))
        #expect(error.line == 6)
        #expect(error.message.contains("Property S has no Type"))
    }

    @Test func anUnsupportedVersionIsRejected() throws {
        let text = """
            <?xml version="1.0"?>
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="5.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS"/></edmx:DataServices></edmx:Edmx>
            """
        let error = try #require(rejection(text))
        #expect(error.message.contains("unsupported EDMX version '5.0'"))
    }

    // MARK: Tolerated defects: diagnostics by default, errors in strict mode

    static let bindingToNowhere = """
        <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <NavigationProperty Name="Lines" Type="Collection(NS.Order)"/></EntityType>
        <EntityContainer Name="C"><EntitySet Name="Orders" EntityType="NS.Order">
        <NavigationPropertyBinding Path="Lines" Target="Nowhere"/>
        </EntitySet></EntityContainer>
        """

    @Test func aBindingToNowhereIsRejectedInStrictMode() throws {
        let error = try #require(rejection(v4(Self.bindingToNowhere), options: MetadataReader.Options(isStrict: true)))
        #expect(error.line == 8)
        #expect(error.message.contains("Target Nowhere"))
    }

    @Test func aBindingToNowhereIsDroppedWithADiagnosticByDefault() throws {
        let model = try MetadataReader.read(v4(Self.bindingToNowhere))
        #expect(model.entitySet(named: "Orders")?.navigationPropertyBindings.isEmpty == true)
        let diagnostic = try #require(model.diagnostics.first)
        #expect(diagnostic.line == 8)
        #expect(diagnostic.message.contains("Target Nowhere"))
    }

    @Test func anUnknownEdmTypeIsRejectedWhenNotAccepted() throws {
        let text = v4("<ComplexType Name=\"A\"><Property Name=\"F\" Type=\"Edm.Float\"/></ComplexType>")
        let error = try #require(rejection(text, options: MetadataReader.Options(acceptsUnknownEdmTypes: false)))
        #expect(error.line == 5)
        #expect(error.message.contains("Edm.Float"))
        let lenient = try MetadataReader.read(text)
        #expect(lenient.complexType(named: "NS.A")?.properties.first?.type.kind == .unknownEdmType)
    }

    @Test func everyFixtureIsReadOrItsDefectsAreNamedInStrictMode() throws {
        // Strict mode turns the tolerated defects of real documents into errors with a line.
        let bytes = try #require(Fixtures.bytes("simple-odata-client/DynamicsCRM.xml"))
        let lenient = try MetadataReader.read(bytes)
        #expect(!lenient.diagnostics.isEmpty)
        do {
            _ = try MetadataReader.read(bytes, options: MetadataReader.Options(isStrict: true))
            Issue.record("strict mode accepted Dynamics CRM's binding to the undeclared entity set owners")
        } catch {
            #expect(error.message.contains("owners"))
            #expect(error.line == lenient.diagnostics.first?.line)
        }
    }

    // MARK: Paths the faster validation takes (byte scans, early exits)

    @Test func aPropertyDeclaredTwiceIsRejectedInSmallAndLargeTypes() throws {
        let small = try #require(rejection(v4("<ComplexType Name=\"A\">\n<Property Name=\"P\" Type=\"Edm.Int32\"/>\n<Property Name=\"P\" Type=\"Edm.String\"/></ComplexType>")))
        #expect(small.line == 7)
        #expect(small.message.contains("ComplexType A declares the property P twice"))
        let many = (0..<20).map { "<Property Name=\"P\($0)\" Type=\"Edm.Int32\"/>" }.joined()
        let large = try #require(rejection(v4("<ComplexType Name=\"A\">" + many + "\n<Property Name=\"P3\" Type=\"Edm.String\"/></ComplexType>")))
        #expect(large.line == 6)
        #expect(large.message.contains("declares the property P3 twice"))
    }

    @Test func aPropertyDeclaredTwiceComesAfterAnEarlierTypesFault() throws {
        // The reader notes the duplicate as it reads; validation still reports faults in its own
        // order: the first type's missing base type before the second type's duplicate property.
        let error = try #require(rejection(v4("<ComplexType Name=\"A\" BaseType=\"NS.Missing\"/>\n<ComplexType Name=\"B\">"
            + "<Property Name=\"P\" Type=\"Edm.Int32\"/><Property Name=\"P\" Type=\"Edm.Int32\"/></ComplexType>")))
        #expect(error.line == 5)
        #expect(error.message.contains("BaseType NS.Missing"))
    }

    @Test func aFunctionAndAnActionOfOneNameAreToleratedWhereTheyStand() throws {
        // The reader declares operations as it reads (``OperationDeclarationTable``); the fault
        // keeps its line, column and place among the other diagnostics, and strict mode throws it.
        let body = "<Function Name=\"f\"><ReturnType Type=\"Edm.Int32\"/></Function>\n  <Action Name=\"f\"/>\n"
            + "<EntityContainer Name=\"C\"><EntitySet Name=\"S\" EntityType=\"NS.T\"><NavigationPropertyBinding Path=\"N\" Target=\"nowhere\"/></EntitySet></EntityContainer>\n"
            + "<EntityType Name=\"T\"><Key><PropertyRef Name=\"K\"/></Key><Property Name=\"K\" Type=\"Edm.Int32\" Nullable=\"false\"/>"
            + "<NavigationProperty Name=\"N\" Type=\"NS.T\"/></EntityType>"
        let model = try MetadataReader.read(v4(body))
        let first = try #require(model.diagnostics.first)
        #expect(first.message == "NS.f is declared both as a function and as an action")
        #expect(first.line == 6)
        #expect(first.column == 11)
        #expect(model.diagnostics.count == 2)
        #expect(model.diagnostics.last?.message.contains("Target nowhere") == true)
        let strict = try #require(rejection(v4(body), options: MetadataReader.Options(isStrict: true)))
        #expect(strict.message == first.message)
        #expect(strict.line == 6)
        // A later schema's fault comes after the first schema's tolerated conflict.
        let two = v4(body + "\n</Schema>\n<Schema xmlns=\"http://docs.oasis-open.org/odata/ns/edm\" Namespace=\"NS\">")
        let duplicate = try #require(rejection(two, options: MetadataReader.Options(isStrict: true)))
        #expect(duplicate.message == first.message)
        let lenientDuplicate = try #require(rejection(two))
        #expect(lenientDuplicate.message.contains("declared by two schemas"))
    }

    @Test func annotationTargetsWithEmptySegmentsAreRejected() throws {
        for target in ["NS.A//P", "NS.A/", "/NS.A"] {
            let error = try #require(rejection(v4("<ComplexType Name=\"A\"/>\n<Annotations Target=\"\(target)\"><Annotation Term=\"Core.Description\" String=\"x\"/></Annotations>")))
            #expect(error.line == 6)
            #expect(error.message.contains("has an empty path segment"))
        }
        let model = try MetadataReader.read(v4("<ComplexType Name=\"A\"><Property Name=\"P\" Type=\"Edm.Int32\"/></ComplexType>\n<Annotations Target=\"NS.A/P\"><Annotation Term=\"Core.Description\" String=\"x\"/></Annotations>"))
        #expect(model.diagnostics.isEmpty)
    }

    @Test func aLongBaseTypeChainIsAcceptedAndALongerCycleRejected() throws {
        let chain = (1..<6).map { "<ComplexType Name=\"T\($0)\" BaseType=\"NS.T\($0 - 1)\"/>" }.joined()
        _ = try MetadataReader.read(v4("<ComplexType Name=\"T0\"/>" + chain))
        let error = try #require(rejection(v4("""
            <ComplexType Name="Leaf" BaseType="NS.A"/>
            <ComplexType Name="A" BaseType="NS.B"/>
            <ComplexType Name="B" BaseType="NS.C"/>
            <ComplexType Name="C" BaseType="NS.A"/>
            """)))
        #expect(error.line == 5)
        #expect(error.message.contains("ComplexType Leaf inherits from itself"))
    }

    @Test func typeAttributesAreParsedOnTheirBytes() throws {
        #expect(TypeReference(parsing: "Collection(NS.A)") == TypeReference(name: "NS.A", isCollection: true))
        #expect(TypeReference(parsing: "NS.Ä") == TypeReference(name: "NS.Ä"))
        #expect(TypeReference(parsing: "Collection(NS.Ä)")?.name == "NS.Ä")
        for malformed in ["", "Collection(", "Collection()", "Collection(NS.A", "List(NS.A)", "Collection(Collection(NS.A))"] {
            #expect(TypeReference(parsing: malformed) == nil, "\(malformed)")
        }
    }
}
