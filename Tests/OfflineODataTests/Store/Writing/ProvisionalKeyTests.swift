import Testing
@_spi(Tool) @testable import OfflineOData

/// Entities created offline without their key: the store makes one up, the create answers with
/// the entity (so the caller learns it), later requests use it, and the service's key replaces it
/// at upload, in the row and in the queued URLs.
@Suite struct ProvisionalKeyTests {
    typealias Fixture = LocalWriterTests.Fixture

    @Test func aCreateWithoutItsStringKeyGetsAProvisionalOneAndAnswersWithTheEntity() throws {
        let f = try Fixture()
        let first = try f.write("POST", "TravelagencyCollection", #"{"name":"No key yet","city":"Oslo"}"#)
        let second = try f.write("POST", "TravelagencyCollection", #"{"name":"Another"}"#)
        #expect(try f.agency("~1", "name")?.0 == "No key yet")
        #expect(try f.agency("~2", "name")?.0 == "Another")
        let answer = try JSONValue.parse(first.body)
        #expect(answer["agencynum"]?.stringValue == "~1")
        #expect(answer["city"]?.stringValue == "Oslo")
        #expect(answer["@odata.context"]?.stringValue?.hasSuffix("$metadata#TravelagencyCollection/$entity") == true)
        #expect(answer["@com.sap.vocabularies.Offline.v1.isLocal"]?.boolValue == true)
        #expect(try JSONValue.parse(second.body)["agencynum"]?.stringValue == "~2")
        // The queued POST is the caller's body: the service assigns the key.
        #expect(try f.queue().first?.body == #"{"name":"No key yet","city":"Oslo"}"#)
        // The provisional key addresses the entity like any other.
        _ = try f.write("PATCH", "TravelagencyCollection('~1')", #"{"city":"Bergen"}"#)
        #expect(try f.agency("~1", "city")?.0 == "Bergen")
        // A create that gives its key answers with that key.
        let keyed = try f.write("POST", "TravelagencyCollection", #"{"agencynum":"00000042","name":"Keyed"}"#)
        #expect(try JSONValue.parse(keyed.body)["agencynum"]?.stringValue == "00000042")
    }

    @Test func integerAndGuidKeysAreMadeUpBelowZeroAndAtRandom() throws {
        let metadata = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="K" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="N"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
              <EntityType Name="G"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Guid" Nullable="false"/></EntityType>
              <EntityType Name="D"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Date" Nullable="false"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="Ns" EntityType="K.N"/><EntitySet Name="Gs" EntityType="K.G"/>
                <EntitySet Name="Ds" EntityType="K.D"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("k.store"), metadata: metadata)
        defer { store.close() }
        func key(_ outcome: WriteOutcome) throws -> JSONValue? { try JSONValue.parse(outcome.body)["ID"] }
        _ = try store.write(method: "POST", url: "Ns", body: Array(#"{"ID":5}"#.utf8))
        #expect(try key(store.write(method: "POST", url: "Ns", body: Array("{}".utf8)))?.int64Value == -1)
        #expect(try key(store.write(method: "POST", url: "Ns", body: Array("{}".utf8)))?.int64Value == -2)
        let guid = try key(store.write(method: "POST", url: "Gs", body: Array("{}".utf8)))?.stringValue ?? ""
        #expect(guid.count == 36 && guid == guid.lowercased() && Array(guid)[14] == "4")
        #expect(try store.execute(method: "GET", url: "Ns(-2)").status == 200)
        #expect { try store.write(method: "POST", url: "Ds", body: Array("{}".utf8)) } throws: {
            ($0 as? ODataError)?.code == .constraint && ($0 as? ODataError)?.message.contains("Edm.Date") == true
        }
    }

    @Test func theServicesKeyReplacesTheProvisionalOneInTheRowAndTheQueuedURLs() throws {
        let f = try Fixture()
        _ = try f.write("POST", "TravelagencyCollection", #"{"name":"Made offline"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('~1')", #"{"city":"Oslo"}"#)
        _ = try f.write("PATCH", "TravelagencyCollection('~1')?sap-client=100", #"{"city":"Bergen"}"#)
        let queue = try f.queue()
        try f.store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                let answer = HTTPResponse(status: 201, headers: [], body: Array(#"{"agencynum":"00000777","name":"Made offline"}"#.utf8))
                try UploadRecorder(schema: f.store.schema, dialect: .v4).acknowledge(queue[0], answer, answer: try JSONValue.parse(answer.body), in: db)
            }
        }
        #expect(try f.agency("~1", "name") == nil)
        #expect(try f.agency("00000777", "city")?.0 == "Bergen")
        #expect(try f.queue().map(\.url) == ["TravelagencyCollection('00000777')", "TravelagencyCollection('00000777')?sap-client=100"])
    }

    @Test func keyPredicatesAreReplacedWithQuotesRespected() {
        #expect(ServerAssignedKey.url("Set('a)b''c')/Nav?x=(1)", withKeyPredicate: "(7)") == "Set(7)/Nav?x=(1)")
        #expect(ServerAssignedKey.url("Set(A=1,B='x')", withKeyPredicate: "(A=2,B='y')") == "Set(A=2,B='y')")
        #expect(ServerAssignedKey.url("Set", withKeyPredicate: "(1)") == nil)
    }
}
