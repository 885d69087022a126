import Testing
@_spi(Tool) @testable import OfflineOData

/// The validation's shortcuts for repeats answer as the full lookups do, with one thread and with
/// two: a key inherited through base types (read in place), a run of annotation groups on one
/// type (the head found fine just before), and the `Edm` primitives a read has named already.
@Suite struct RepeatedLookupTests {
    /// A V4 document whose schema body starts on line 5.
    func v4(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
        <edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS">
        \(body)
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """
    }

    func read(_ text: String, threads: MetadataReader.Threads) throws(ODataError) -> MetadataModel {
        let bytes = Array(text.utf8)
        let result: Result<MetadataModel, ODataError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ODataError) in try MetadataReader.read(buffer, options: MetadataReader.Options(), threads: threads) }
        }
        return try result.get()
    }

    static let hierarchy = """
        <EntityType Name="Root"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
        <EntityType Name="Middle" BaseType="NS.Root"/>
        <EntityType Name="Leaf" BaseType="NS.Middle"/>
        <EntityType Name="Keyless"><Property Name="Name" Type="Edm.String"/></EntityType>
        <EntityType Name="Below" BaseType="NS.Keyless"/>
        """

    @Test(arguments: [MetadataReader.Threads.one, .two])
    func aKeyTwoBaseTypesUpIsInheritedAndAChainWithoutOneIsNot(threads: MetadataReader.Threads) throws {
        let set = "<EntityContainer Name=\"C\"><EntitySet Name=\"Leaves\" EntityType=\"NS.Leaf\"/></EntityContainer>"
        let model = try read(v4(RepeatedLookupTests.hierarchy + "\n" + set), threads: threads)
        let messages = model.diagnostics.map(\.message)
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.contains { $0.contains("NS.Keyless has no key") }, "\(messages)")
        #expect(messages.contains { $0.contains("NS.Below has no key") }, "\(messages)")
        #expect(!messages.contains { $0.contains("NS.Leaf") || $0.contains("NS.Middle") }, "\(messages)")

        let used = "<EntityContainer Name=\"C\"><EntitySet Name=\"Things\" EntityType=\"NS.Below\"/></EntityContainer>"
        do {
            _ = try read(v4(RepeatedLookupTests.hierarchy + "\n" + used), threads: threads)
            Issue.record("a set of a type without a key was accepted")
        } catch {
            #expect(error.message.contains("NS.Below has no key"), "\(error.message)")
            #expect(error.line == 9)
        }
    }

    @Test(arguments: [MetadataReader.Threads.one, .two])
    func aRunOfGroupsOnOneTypeIsCheckedAsEachAlone(threads: MetadataReader.Threads) throws {
        let annotation = "<Annotation Term=\"Core.Description\" String=\"x\"/>"
        let targets = ["NS.A/P", "NS.A/Q", "NS.A", "NS.Missing/P", "NS.Missing/Q", "NS.AB/P", "NS.A/P", "NS.Missing"]
        let groups = targets.map { "<Annotations Target=\"\($0)\">\(annotation)</Annotations>" }.joined(separator: "\n")
        let type = "<ComplexType Name=\"A\"><Property Name=\"P\" Type=\"Edm.Int32\"/><Property Name=\"Q\" Type=\"Edm.Int32\"/></ComplexType>"
        let model = try read(v4(type + "\n" + groups), threads: threads)
        // One diagnostic per group whose head is not declared, however many came before it.
        let lines = model.diagnostics.map(\.line)
        #expect(lines == [9, 10, 11, 13], "\(model.diagnostics.map(\.message))")
        #expect(model.diagnostics.allSatisfy { $0.message.contains("which is not declared in the document") })
        #expect(model.diagnostics.filter { $0.message.contains("names NS.AB,") }.count == 1)
    }

    @Test(arguments: [MetadataReader.Threads.one, .two])
    func repeatedPrimitiveNamesKeepTheirTypes(threads: MetadataReader.Threads) throws {
        let names = ["Edm.String", "Edm.DateTimeOffset", "Edm.Float", "Collection(Edm.Int64)", "Edm.String",
                     "Edm.DateTimeOffset", "Edm.Float", "Edm.Int64", "Edm.Int32"]
        let properties = names.enumerated().map { "<Property Name=\"P\($0.offset)\" Type=\"\($0.element)\"/>" }.joined()
        let model = try read(v4("<ComplexType Name=\"A\">" + properties + "</ComplexType>"), threads: threads)
        let types = try #require(model.complexType(named: "NS.A")).properties.map(\.type)
        #expect(types.map(\.kind) == [.primitive(.string), .primitive(.dateTimeOffset), .unknownEdmType, .primitive(.int64),
                                     .primitive(.string), .primitive(.dateTimeOffset), .unknownEdmType, .primitive(.int64),
                                     .primitive(.int32)])
        #expect(types.map(\.isCollection) == [false, false, false, true, false, false, false, false, false])
        #expect(types.map(\.name) == ["Edm.String", "Edm.DateTimeOffset", "Edm.Float", "Edm.Int64", "Edm.String",
                                     "Edm.DateTimeOffset", "Edm.Float", "Edm.Int64", "Edm.Int32"])
    }
}
