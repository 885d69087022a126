import Testing
@_spi(Tool) @testable import OfflineOData

@Suite(.needsFixtures) struct LocalStoreTests {
    static let v4Metadata = Fixtures.text("apache-olingo-odata4/trippin/trippin.xml") ?? ""
    static let v2Metadata = Fixtures.text("sap-python-pyodata/metadata-EXAMPLE_SRV-v2.xml") ?? ""

    @Test func createsTablesKeepsTheModelAndReopensWithoutAService() throws {
        let folder = TemporaryFolder()
        let path = folder.file("trippin.store")
        let store = try LocalStore.create(path: path, metadata: Self.v4Metadata, definingRequests: [
            DefiningRequest(name: "People", url: "People?$filter=FirstName eq 'Russell'&$expand=Trips"),
            DefiningRequest(name: "Airports", url: "Airports"),
        ], serviceRoot: "http://127.0.0.1:9/trippin/")
        #expect(store.dialect == .v4)
        store.close()

        let reopened = try LocalStore.open(path: path)
        #expect(reopened.dialect == .v4)
        #expect(reopened.schema.tables.count == store.schema.tables.count)
        #expect(try reopened.definingRequests().map(\.name) == ["People", "Airports"])
        #expect(try reopened.serviceRoot() == "http://127.0.0.1:9/trippin/")
        let tables = try reopened.file.withConnection { db throws(ODataError) in
            try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name LIKE 'es/%'")
        }
        #expect(tables == Int64(store.schema.tables.count))
        reopened.close()
    }

    @Test func aV2DocumentMakesAV2Store() throws {
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("v2.store"), metadata: Self.v2Metadata,
                                            definingRequests: [DefiningRequest(name: "M", url: "MasterEntities?$filter=Key eq 'a'")])
        #expect(store.dialect == .v2)
        store.close()
    }

    @Test func refusesAFunctionImportAsADefiningRequest() throws {
        let folder = TemporaryFolder()
        let path = folder.file("f.store")
        #expect {
            try LocalStore.create(path: path, metadata: Self.v4Metadata,
                                    definingRequests: [DefiningRequest(name: "Nearest", url: "GetNearestAirport(lat=1,lon=2)")])
        } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .unsupported && error.message.contains("does not run operations")
        }
        #expect(!fileExists(path))
    }

    @Test func refusesUnknownSetsBrokenURLsAndBrokenMetadata() throws {
        let folder = TemporaryFolder()
        #expect {
            try LocalStore.create(path: folder.file("a.store"), metadata: Self.v4Metadata,
                                    definingRequests: [DefiningRequest(name: "X", url: "Nowhere")])
        } throws: { ($0 as? ODataError)?.code == .semantic }
        #expect {
            try LocalStore.create(path: folder.file("b.store"), metadata: Self.v4Metadata,
                                    definingRequests: [DefiningRequest(name: "X", url: "People?$filter=(")])
        } throws: { ($0 as? ODataError)?.code == .syntax }
        #expect {
            try LocalStore.create(path: folder.file("c.store"), metadata: "<edmx:Edmx")
        } throws: { ($0 as? ODataError)?.code == .metadata }
    }

    @Test func createTwiceAndOpenWithoutAModelAreErrors() throws {
        let folder = TemporaryFolder()
        let path = folder.file("twice.store")
        try LocalStore.create(path: path, metadata: Self.v4Metadata).close()
        #expect { try LocalStore.create(path: path, metadata: Self.v4Metadata) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
        let empty = folder.file("empty.store")
        try StoreFile(path: empty).close()
        #expect { try LocalStore.open(path: empty) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .notAStore && error.message.contains("without a service model")
        }
    }
}

/// Whether a file exists (tests only).
func fileExists(_ path: String) -> Bool { readFile(path) != nil }
