import Testing
@_spi(Tool) @testable import OfflineOData

/// A document read with two threads (parsed ahead, ``XMLParseAhead``, and checked partly beside
/// the validation, ``DetachedCheck``) reads exactly as one read with one: the same model, the same
/// diagnostics in the same order, the same error with the same line and column, wherever in the
/// document the fault is (in the first part, the middle or the last) and whichever step finds it.
@Suite(.needsFixtures) struct ParseAheadTests {
    /// The outcome of one read, comparable across the two ways.
    enum Outcome: Equatable {
        case model(version: ODataVersion, edmxVersion: String, schemas: [Schema], references: [DocumentReference], diagnostics: [String])
        case error(String)
    }

    func read(_ bytes: [UInt8], _ threads: MetadataReader.Threads, options: MetadataReader.Options = MetadataReader.Options(),
              chunkSize: Int = XMLRecorder.defaultChunkSize) -> Outcome {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ODataError) in try MetadataReader.read(buffer, options: options, threads: threads, chunkSize: chunkSize) }
        }
        switch result {
        case .success(let model):
            return .model(version: model.version, edmxVersion: model.edmxVersion, schemas: model.schemas,
                          references: model.references, diagnostics: model.diagnostics.map { "\($0)" })
        case .failure(let error):
            return .error("\(error)")
        }
    }

    func expectSameBothWays(_ bytes: [UInt8], _ what: String, options: MetadataReader.Options = MetadataReader.Options(),
                            sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let one = read(bytes, .one, options: options)
        let two = read(bytes, .two, options: options)
        #expect(one == two, "\(what): read with two threads, the read differs", sourceLocation: sourceLocation)
        return two
    }

    @Test(arguments: MetadataFixtureTests.documents)
    func everyFixtureReadsTheSameParsedAhead(_ path: String) throws {
        let bytes = try #require(Fixtures.bytes(path), "fixture \(path) is missing")
        guard case .model = expectSameBothWays(bytes, path) else {
            Issue.record("\(path) was rejected")
            return
        }
        // Strict mode turns tolerated defects into errors: those must agree too.
        _ = expectSameBothWays(bytes, path + " (strict)", options: MetadataReader.Options(isStrict: true))
    }

    /// Parts of a few hundred bytes: element starts at the end of a part, texts and attribute
    /// values running across parts, thousands of parts in flight. Only where the chunks end
    /// changes, so every fixture gives the same model (which error a broken document names first
    /// may change with the chunk: the XML fault of a chunk is reported before the CSDL faults in it).
    @Test(arguments: MetadataFixtureTests.documents)
    func everyFixtureReadsTheSameInSmallParts(_ path: String) throws {
        let bytes = try #require(Fixtures.bytes(path), "fixture \(path) is missing")
        let whole = read(bytes, .one)
        for chunkSize in [97, 1000] {
            #expect(read(bytes, .two, chunkSize: chunkSize) == whole, "\(path) in parts of \(chunkSize) bytes")
        }
    }

    @Test func aDocumentCutAnywhereFailsTheSameParsedAhead() throws {
        let bytes = try #require(Fixtures.bytes("msgraph-metadata/v1.0-Prod.csdl.xml"))
        for fraction in [0.001, 0.02, 0.1, 0.33, 0.5, 0.77, 0.999] {
            let cut = Array(bytes[..<Int(Double(bytes.count) * fraction)])
            guard case .error(let message) = expectSameBothWays(cut, "cut at \(fraction)") else {
                Issue.record("a document cut at \(fraction) was accepted")
                continue
            }
            #expect(message.contains("line"), "\(message)")
        }
    }

    @Test func aMismatchedEndTagDeepInsideFailsTheSameParsedAhead() throws {
        let bytes = try #require(Fixtures.bytes("msgraph-metadata/v1.0-Prod.csdl.xml"))
        // The first `</EntityType>` past the middle ends an element of another name.
        let middle = bytes.count / 2
        let broken = try replacing("</EntityType>", with: "</EntityTypo>", in: Array(bytes[middle...]))
        guard case .error(let message) = expectSameBothWays(Array(bytes[..<middle]) + broken, "mismatched end tag") else {
            Issue.record("a malformed document was accepted")
            return
        }
        #expect(message.contains("not well-formed"), "\(message)")
    }

    /// `bytes` with the first (or last) occurrence of `old` replaced by `new`.
    func replacing(_ old: String, with new: String, in bytes: [UInt8], last: Bool = false) throws -> [UInt8] {
        let pattern = Array(old.utf8)
        let starts = Array(0...(bytes.count - pattern.count))
        let at = try #require((last ? starts.reversed() : starts).first { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) })
        return Array(bytes[..<at]) + Array(new.utf8) + Array(bytes[(at + pattern.count)...])
    }

    @Test func aDanglingTypeNearTheEndFailsTheSameParsedAhead() throws {
        let bytes = try #require(Fixtures.bytes("msgraph-metadata/v1.0-Prod.csdl.xml"))
        // The last property typed `Edm.String` names a type that does not exist instead.
        let broken = try replacing("Type=\"Edm.String\"", with: "Type=\"microsoft.graph.noSuchType\"", in: bytes, last: true)
        guard case .error(let message) = expectSameBothWays(broken, "dangling type") else {
            Issue.record("a dangling type was accepted")
            return
        }
        #expect(message.contains("microsoft.graph.noSuchType"), "\(message)")
    }

    @Test func aFaultInTheFirstPartStopsTheParseAheadThread() throws {
        let bytes = try #require(Fixtures.bytes("msgraph-metadata/v1.0-Prod.csdl.xml"))
        // A facet that is no boolean near the start: the reader stops long before the parse has
        // run through the document, and the parsing thread must end with it.
        let broken = try replacing("Nullable=\"false\"", with: "Nullable=\"maybe\"", in: bytes)
        for _ in 0..<20 {
            guard case .error(let message) = expectSameBothWays(broken, "early fault") else {
                Issue.record("a bad facet was accepted")
                return
            }
            #expect(message.contains("maybe"), "\(message)")
        }
    }
}

/// Faults found by different steps in one document: with two threads, the step first in the
/// validation's sequence still names the fault, and tolerated defects keep their order.
@Suite struct DetachedCheckOrderTests {
    func document(_ body: String) -> [UInt8] {
        Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
        <edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS">
        \(body)
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """.utf8)
    }

    let keyless = #"<EntityType Name="Keyless"><Property Name="ID" Type="Edm.Int32"/></EntityType>"#
    let product = #"<EntityType Name="Product"><Key><PropertyRef Name="ID"/><PropertyRef Name="Missing"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>"#
    let danglingFunction = #"<Function Name="F"><Parameter Name="p" Type="NS.NoSuchType"/><ReturnType Type="Edm.Int32"/></Function>"#
    let danglingTarget = #"<Annotations Target="NS.NoSuchThing"><Annotation Term="Core.Description" String="x"/></Annotations>"#

    func container(_ sets: String) -> String { #"<EntityContainer Name="C">"# + sets + "</EntityContainer>" }

    @Test func aKeyFaultComesBeforeAnOperationFaultAndATargetDefect() {
        let bytes = document(danglingTarget + keyless + danglingFunction + container(#"<EntitySet Name="K" EntityType="NS.Keyless"/>"#))
        let outcome = ParseAheadTests().expectSameBothWays(bytes, "key, operation and target faults")
        guard case .error(let message) = outcome else { Issue.record("accepted"); return }
        #expect(message.contains("has no key"), "\(message)")
    }

    @Test func anOperationFaultComesBeforeATargetFaultInStrictMode() {
        let bytes = document(danglingTarget + product + danglingFunction)
        let outcome = ParseAheadTests().expectSameBothWays(bytes, "operation and target faults",
                                                           options: MetadataReader.Options(isStrict: true))
        guard case .error(let message) = outcome else { Issue.record("accepted"); return }
        // In strict mode the key naming no property is the first fault (keys come before operations).
        #expect(message.contains("Missing"), "\(message)")
    }

    @Test func toleratedDefectsKeepTheirOrder() {
        let bytes = document(danglingTarget + product + container(#"<EntitySet Name="P" EntityType="NS.Product"><NavigationPropertyBinding Path="Nowhere" Target="P"/></EntitySet>"#))
        let outcome = ParseAheadTests().expectSameBothWays(bytes, "tolerated defects")
        guard case .model(_, _, _, _, let diagnostics) = outcome else { Issue.record("rejected: \(outcome)"); return }
        // The key (links and keys check), the binding (bindings), the target (annotation targets): in that order.
        #expect(diagnostics.count == 3, "\(diagnostics)")
        #expect(diagnostics.first?.contains("Missing") == true, "\(diagnostics)")
        #expect(diagnostics.last?.contains("NoSuchThing") == true, "\(diagnostics)")
    }
}
