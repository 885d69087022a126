import FoundationEssentials
import Testing
@_spi(Tool) @testable import OfflineOData
import OfflineODataFoundation

/// The flight sample's agency, as an app would declare it.
private struct Agency: Codable, Equatable {
    var agencynum: String
    var name: String
    var city: String
    var country: String
}

/// A flight with the EDM forms that differ between V2 and V4: a date (`Edm.DateTime` /
/// `Edm.Date`) and a decimal (a string in V2, a number in V4).
private struct Flight: Decodable, Equatable {
    var carrid: String
    var connid: String
    var fldate: Date
    var price: Decimal?
    var seatsmax: Int?
}

/// The `Codable` reads and writes of `ODataStore` against the real test services: the same
/// `Decodable` types read V2 and V4 answers, offline (a defining request) and online (an uncovered set).
@Suite struct CodableStoreTests {
    private static func open(_ backend: TestBackend, in folder: TemporaryFolder) throws -> ODataStore {
        var options = ODataStore.Options(path: folder.file("codable-\(backend.kind).store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [FlightSample.usAgencies]
        let store = ODataStore.open(options)
        try store.waitUntilOpen()
        return store
    }

    @Test func v2AndV4AnswersDecodeIntoTheSameValues() async throws {
        let v4 = try TestBackend.start(.v4)
        defer { v4.stop() }
        let v2 = try TestBackend.start(.v2)
        defer { v2.stop() }
        let folder = TemporaryFolder()
        let v4Store = try Self.open(v4, in: folder)
        defer { v4Store.close() }
        let v2Store = try Self.open(v2, in: folder)
        defer { v2Store.close() }

        // Offline: the agencies the defining request brought.
        let agencies4 = try await v4Store.entities("TravelagencyCollection?$filter=city eq 'New York'", as: Agency.self)
        let agencies2: [Agency] = try await v2Store.entities("TravelagencyCollection?$filter=city eq 'New York'")
        #expect(!agencies4.isEmpty)
        #expect(agencies4 == agencies2)
        #expect(try await v4Store.count("TravelagencyCollection/$count") == v2Store.count("TravelagencyCollection/$count"))
        let first = try #require(agencies4.first)
        let one = try await v2Store.entity("TravelagencyCollection('\(first.agencynum)')", as: Agency.self)
        #expect(one == first)

        // Online (no defining request covers flights): V2's /Date(ms)/ and decimal strings, V4's dates and numbers.
        let flights4 = try await v4Store.entities("FlightCollection?$top=5&$orderby=carrid,connid,fldate", as: Flight.self)
        let flights2 = try await v2Store.entities("FlightCollection?$top=5&$orderby=carrid,connid,fldate", as: Flight.self)
        #expect(flights4.count == 5)
        #expect(flights4 == flights2)
        // The decimal is the service's exact text, not a double's rounding of it.
        let raw = try JSONValue.parse(v4.get("FlightCollection?$top=1&$orderby=carrid,connid,fldate").body)
        let rawPrice = try #require(raw["value"]?[0]?["price"])
        let priceText = try #require(rawPrice.numberValue?.text ?? rawPrice.stringValue)
        #expect(flights4.first?.price == Decimal(string: priceText))
    }

    @Test func aMismatchedTypeIsASemanticErrorNamingTheMember() async throws {
        struct Wrong: Decodable { var agencynum: String; var name: Int }
        struct Missing: Decodable { var agencynum: String; var nickname: String }
        let v4 = try TestBackend.start(.v4)
        defer { v4.stop() }
        let folder = TemporaryFolder()
        let store = try Self.open(v4, in: folder)
        defer { store.close() }
        // An empty answer fits any type.
        #expect(try await store.entities("TravelagencyCollection?$filter=name eq 'none'", as: Wrong.self).isEmpty)
        await #expect(throws: ODataError.self) {
            _ = try await store.entities("TravelagencyCollection?$filter=city eq 'New York'", as: Missing.self)
        }
        do throws(ODataError) {
            _ = try await store.entities("TravelagencyCollection?$filter=city eq 'New York'", as: Wrong.self)
            Issue.record("a name decoded as an Int")
        } catch {
            #expect(error.code == .semantic)
            #expect(error.message.contains("[0].name"), "\(error.message)")
        }
        do throws(ODataError) {
            _ = try await store.entity("TravelagencyCollection?$filter=city eq 'New York'", as: Agency.self)
            Issue.record("a collection decoded as one entity")
        } catch {
            #expect(error.code == .semantic)
            #expect(error.message.contains("collection"), "\(error.message)")
        }
        // count() adds /$count to a collection's path, as Python's Store.count does (issue 39).
        let newYork = try await store.count("TravelagencyCollection?$filter=city eq 'New York'")
        #expect(newYork > 0)
        #expect(newYork == (try await store.count("TravelagencyCollection/$count?$filter=city eq 'New York'")))
        #expect(newYork == (try await store.count("TravelagencyCollection/?$filter=city eq 'New York'")))
    }

    @Test func encodableValuesAndDataBodiesAreWrittenAndUploadedWithDates() async throws {
        let v2 = try TestBackend.start(.v2)
        defer { v2.stop() }
        let folder = TemporaryFolder()
        let beforeOpening = Date()
        let store = try Self.open(v2, in: folder)
        defer { store.close() }
        let before = Date()

        let created = Agency(agencynum: "99000401", name: "Codable", city: "Boston", country: "US")
        let answer = try await store.create("TravelagencyCollection", from: created)
        #expect(answer.status == 201)
        #expect(try ODataDecoder().decodeEntity(Agency.self, from: answer) == created)
        let body = Data(#"{"agencynum":"99000402","name":"As Data","city":"Boston","country":"US"}"#.utf8)
        _ = try await store.create("TravelagencyCollection", body: body)
        _ = try await store.update("TravelagencyCollection('99000401')", from: ["name": "Codable, renamed"], method: "MERGE")
        #expect(try await store.entity("TravelagencyCollection('99000401')", as: Agency.self).name == "Codable, renamed")
        #expect(try await store.get("TravelagencyCollection('99000402')").data.count > 0)

        struct Stamped: Encodable { var agencynum = "99000403"; var at: Date }
        do throws(ODataError) {
            _ = try await store.encodedBody(Stamped(at: Date(timeIntervalSince1970: .infinity)))
            Issue.record("an infinite date was encoded")
        } catch {
            #expect(error.code == .misuse)
        }
        let v2Date = try await store.encodedBody(Stamped(at: Date(timeIntervalSince1970: 86_400.5)))
        #expect(String(decoding: v2Date, as: UTF8.self).contains(#"Date(86400500)"#))
        await #expect(throws: ODataError.self) { _ = try await store.encodedBody(["not", "an", "object"]) }

        let queue = try await store.perform(.requestQueue)
        let after = Date()
        #expect(queue.count == 3)
        for request in queue {
            // Between the clock read before the writes and after them (the timestamps have
            // milliseconds, the Dates more: a millisecond of slack each side), however loaded the machine.
            let created = try #require(request.createdDate, "\(request.createdAt)")
            #expect(created.timeIntervalSince(before) > -0.002 && after.timeIntervalSince(created) > -0.002,
                    "\(request.createdAt) is not between \(before) and \(after)")
        }
        let steps = Protected<[UploadProgress]>([])
        let uploaded = try await store.perform(.upload(UploadOptions(progress: { step in
            steps.withLock { $0.append(step) }
            return false
        })))
        // The create of 99000401 and its MERGE go as one create (the queue's compaction).
        #expect(uploaded.sent == 2 && uploaded.compacted == 1)
        #expect(steps.withLock { $0 }.map(\.sent) == [1, 2])
        let (status, serviceBody) = try v2.get("TravelagencyCollection('99000401')")
        #expect(status == 200)
        #expect(String(decoding: serviceBody, as: UTF8.self).contains("Codable, renamed"))

        let defining = try #require(try await store.perform(.status).definingRequests.first)
        let downloaded = try #require(defining.lastDownloadDate, "\(defining.lastDownload ?? "nil")")
        // The opening's download: after the store was opened, before now.
        #expect(downloaded.timeIntervalSince(beforeOpening) > -0.002 && Date().timeIntervalSince(downloaded) > -0.002,
                "\(defining.lastDownload ?? "") is not between \(beforeOpening) and now")
    }
}
