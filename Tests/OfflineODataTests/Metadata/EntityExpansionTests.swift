import Testing
@_spi(Tool) @testable import OfflineOData

/// Issue 20: references in attribute values are expanded in one pass, in time linear in what
/// they expand to (libxml2's own join was quadratic: a 242 KB document took 14 s), and an
/// expansion beyond the budget is refused instead of filling memory.
@Suite struct EntityExpansionTests {
    let recording = XMLRecordingTests()

    @Test func manyReferencesInManyAttributes() throws {
        let value = String(repeating: "&amp;&#x41;&#66;&lt;", count: 5_000)
        let properties = (0..<40).map {
            "<Property Name=\"P\($0)\" Type=\"Edm.String\" xmlns:sap=\"http://www.sap.com/Protocols/SAPData\" sap:label=\"\(value)\"/>"
        }.joined()
        // The properties go after N, inside the entity type.
        let parts = recording.document(label: value).split(separator: "</EntityType>", maxSplits: 1, omittingEmptySubsequences: false)
        let text = String(parts[0]) + properties + "</EntityType>" + String(parts[1])
        let model = try MetadataReader.read(text)
        let expected = String(repeating: "&AB<", count: 5_000)
        let type = try #require(model.entityType(named: "NS.Product"))
        #expect(type.property(named: "N")?.foreignAttributes.first?.value == expected)
        for index in 0..<40 {
            #expect(type.property(named: "P\(index)")?.foreignAttributes.first?.value == expected)
        }
    }

    @Test func manyReferencesToADeclaredEntity() throws {
        let big = String(repeating: "0123456789", count: 100)
        let dtd = "<!DOCTYPE edmx:Edmx [<!ENTITY big \"\(big)\"><!ENTITY pair \"[&big;&amp;&#x42;&big;]\">]>\n"
        #expect(try recording.label(recording.document(dtd: dtd, label: String(repeating: "a&big;", count: 20_000)))
                == String(repeating: "a" + big, count: 20_000))
        #expect(try recording.label(recording.document(dtd: dtd, label: String(repeating: "&pair;b", count: 100)))
                == String(repeating: "[" + big + "&B" + big + "]b", count: 100))
    }

    @Test func anExpansionBeyondTheBudgetIsRefused() throws {
        // 80,000 references to a 1,000-byte entity: 80 MB from a 480 KB document, more than the
        // budget (64 MiB plus 16 bytes per byte of the document).
        let dtd = "<!DOCTYPE edmx:Edmx [<!ENTITY big \"\(String(repeating: "0123456789", count: 100))\">]>\n"
        do {
            _ = try recording.label(recording.document(dtd: dtd, label: String(repeating: "a&big;", count: 80_000)))
            Issue.record("an 80 MB expansion was accepted")
        } catch let error as ODataError {
            #expect(error.code == .metadata)
            #expect(error.message.contains("expand to more text than the limit"), "\(error.message)")
        }
    }
}
