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

    /// Issue 39: a DOCTYPE is refused outright, so declared entities never expand (the budget
    /// above stays for libxml2's own references, but nothing declared reaches it).
    func expectRefused(_ text: String, _ what: String = "") {
        do throws(ODataError) {
            _ = try MetadataReader.read(text)
            Issue.record("a document with a DOCTYPE was read: \(what)")
        } catch {
            #expect(error.code == .metadata, "\(what)")
            #expect(error.message.contains("DOCTYPE declaration"), "\(error.message)")
            #expect(error.line == 2, "\(String(describing: error.line))")
        }
    }

    @Test func declaredEntitiesAreRefusedBeforeTheyExpand() {
        let big = String(repeating: "0123456789", count: 100)
        let dtd = "<!DOCTYPE edmx:Edmx [<!ENTITY big \"\(big)\"><!ENTITY pair \"[&big;&amp;&#x42;&big;]\">]>\n"
        expectRefused(recording.document(dtd: dtd, label: String(repeating: "a&big;", count: 20_000)))
        expectRefused(recording.document(dtd: dtd, label: "plain"), "refused also when no entity is used")
    }

    @Test func anyDoctypeIsRefused() {
        expectRefused(recording.document(dtd: "<!DOCTYPE edmx:Edmx>\n"), "a bare DOCTYPE")
        expectRefused(recording.document(dtd: "<!DOCTYPE edmx:Edmx SYSTEM \"http://127.0.0.1:9/x.dtd\">\n"), "an external DTD")
        // The "billion laughs": refused before libxml2 looks at a single reference.
        var laughs = "<!ENTITY l0 \"ha\">"
        for level in 1...9 { laughs += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        expectRefused(recording.document(dtd: "<!DOCTYPE edmx:Edmx [\(laughs)]>\n", label: "&l9;"), "billion laughs")
    }
}
