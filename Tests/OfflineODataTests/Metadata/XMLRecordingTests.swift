import Testing
@_spi(Tool) @testable import OfflineOData

/// What the SAX2 recording hands the CSDL reader, pinned to what libxml2's tree (read through
/// `xmlTextReader`) gave before: references in attribute values expanded, texts split where the
/// tree had separate text nodes, the contents of entity references in text not entered.
@Suite struct XMLRecordingTests {
    func document(dtd: String = "", label: String = "x", annotation: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        \(dtd)<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
        <edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS">
        <EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="N" Type="Edm.String" sap:label="\(label)" xmlns:sap="http://www.sap.com/Protocols/SAPData"/></EntityType>
        <EntityContainer Name="C"><EntitySet Name="Products" EntityType="NS.Product"/></EntityContainer>
        <Annotations Target="NS.Product"><Annotation Term="Core.Description">\(annotation)</Annotation></Annotations>
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """
    }

    func label(_ text: String) throws -> String? {
        let model = try MetadataReader.read(text)
        return model.entityType(named: "NS.Product")?.property(named: "N")?.foreignAttributes.first?.value
    }

    func annotationText(_ text: String) throws -> String? {
        let model = try MetadataReader.read(text)
        return model.schemas.first?.annotationGroups.first?.annotations.first?.value?.value
    }

    @Test func characterAndPredefinedReferencesInAttributeValuesAreDecoded() throws {
        #expect(try label(document(label: "a&amp;b&#38;c&lt;d&#x41;&gt;&quot;&apos;")) == "a&b&c<dA>\"'")
    }

    @Test func aDocumentWithEntityDeclarationsIsRefused() throws {
        let dtd = "<!DOCTYPE edmx:Edmx [<!ENTITY e \"EXP&amp;\"><!ENTITY f \"[&e;&e;]\">]>\n"
        #expect(throws: ODataError.self) { try label(document(dtd: dtd, label: "x&e;y")) }
    }

    @Test func textIsSplitAtCommentsAndProcessingInstructionsAndJoinedAgain() throws {
        #expect(try annotationText(document(annotation: "<String>a<!--x-->b<?p?>c</String>")) == "abc")
        #expect(try annotationText(document(annotation: "<String>a<![CDATA[<b>&amp;]]>c</String>")) == "a<b>&amp;c")
    }

    @Test func entityReferencesInTextAreRefusedWithTheirDeclarations() throws {
        let dtd = "<!DOCTYPE edmx:Edmx [<!ENTITY e \"EXP\"><!ENTITY s \"<String>inside</String>\">]>\n"
        #expect(throws: ODataError.self) { try annotationText(document(dtd: dtd, annotation: "<String>a&e;b&amp;c</String>")) }
        #expect(throws: ODataError.self) { try MetadataReader.read(document(dtd: dtd, annotation: "&s;")) }
    }

    @Test func whiteSpaceOnlyTextIsLayoutAndEmptyElementsHaveNoValue() throws {
        #expect(try annotationText(document(annotation: "<String> \n\t </String>")) == nil)
        #expect(try annotationText(document(annotation: "<String/>")) == nil)
        #expect(try annotationText(document(annotation: "<String>  x  </String>")) == "  x  ")
    }
}
