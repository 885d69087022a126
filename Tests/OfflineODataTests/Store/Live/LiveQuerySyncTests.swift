#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Live queries fed by the sync: a download of several pages (seen whole, never page by page), its
/// delta that deletes rows, and an upload whose service key replaces the provisional one.
@Suite struct LiveQuerySyncTests {
    /// A V4 flight service under `/svc/`: agencies in two pages, then a delta that removes one and
    /// changes another; creates answered with the key `00000777`.
    static func service(_ request: ReceivedRequest) -> TestHTTPBehaviour {
        let json = [("Content-Type", "application/json")]
        if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "{}", headers: [("X-CSRF-Token", "t1")]) }
        if request.target.hasSuffix("/$metadata") {
            return .text(200, FlightSample.v4Metadata, headers: [("Content-Type", "application/xml")])
        }
        func agency(_ key: String, _ city: String) -> String {
            #"{"agencynum":"\#(key)","name":"Agency \#(key)","city":"\#(city)","country":"US"}"#
        }
        if request.method == "POST" {
            return .text(201, #"{"agencynum":"00000777","name":"Made offline","city":"Boston","country":"US","@odata.etag":"W/\"1\""}"#,
                         headers: json)
        }
        if request.target.contains("deltatoken=d1") {
            let body = #"{"value":[{"@removed":{"reason":"deleted"},"@id":"TravelagencyCollection('00000002')"},"#
                + agency("00000003", "Boston") + #"],"@odata.deltaLink":"TravelagencyCollection?$deltatoken=d2"}"#
            return .text(200, body, headers: json)
        }
        if request.target.contains("deltatoken=d2") {
            return .text(200, #"{"value":[],"@odata.deltaLink":"TravelagencyCollection?$deltatoken=d2"}"#, headers: json)
        }
        if request.target.contains("skiptoken=2") {
            return .text(200, #"{"value":["# + agency("00000003", "Oslo") + #"],"@odata.deltaLink":"TravelagencyCollection?$deltatoken=d1"}"#,
                         headers: json)
        }
        if request.target.contains("TravelagencyCollection") {
            return .text(200, #"{"value":["# + agency("00000001", "Boston") + "," + agency("00000002", "Boston")
                         + #"],"@odata.nextLink":"TravelagencyCollection?$skiptoken=2"}"#, headers: json)
        }
        return .text(404, #"{"error":{"code":"404","message":"no"}}"#, headers: json)
    }

    static func options(_ server: TestHTTPServer, in folder: TemporaryFolder) -> ODataStore.Options {
        var options = offlineFlightOptions(in: folder)
        options.serviceRoot = server.baseURL + "/svc/"
        options.downloadsOnFirstOpen = false
        return options
    }

    @Test func aDownloadIsSeenWholeAndItsDeltaDeletesRows() throws {
        let server = try TestHTTPServer(handler: Self.service)
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = ODataStore.open(Self.options(server, in: folder))
        defer { store.close() }
        let log = AnswerLog()
        // No interval: every commit that changes the table is read, so a page made visible alone would show.
        let query = try store.watch("TravelagencyCollection?$orderby=agencynum", interval: 0) { log.record($0) }
        #expect(log.wait(for: 1))
        _ = try store.performAndWait(.download(DownloadOptions()))
        #expect(log.wait { agencyKeys($0.last) == ["00000001", "00000002", "00000003"] })
        #expect(store.liveQueriesSettle())
        // Every answer delivered is a state a transaction committed: before the download or after it.
        let states = log.all.map { agencyKeys($0) ?? ["?"] }
        #expect(states == [[], ["00000001", "00000002", "00000003"]])
        // The delta removes 00000002 and moves 00000003 to Boston.
        let boston = AnswerLog()
        _ = try store.watch(LiveQueryTests.boston) { boston.record($0) }
        #expect(boston.wait { agencyKeys($0.last) == ["00000001", "00000002"] })
        _ = try store.performAndWait(.download(DownloadOptions()))
        #expect(log.wait { agencyKeys($0.last) == ["00000001", "00000003"] })
        #expect(boston.wait { agencyKeys($0.last) == ["00000001", "00000003"] })
        // A delta that changes nothing runs nothing (its commits touch no table the reads read) or
        // delivers nothing.
        #expect(store.liveQueriesSettle())
        let delivered = query.deliveryCount
        _ = try store.performAndWait(.download(DownloadOptions()))
        #expect(store.liveQueriesSettle())
        #expect(query.deliveryCount == delivered)
    }

    @Test func anUploadReplacesTheProvisionalKey() throws {
        let server = try TestHTTPServer(handler: Self.service)
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = ODataStore.open(Self.options(server, in: folder))
        defer { store.close() }
        let log = AnswerLog()
        _ = try store.watch(LiveQueryTests.boston) { log.record($0) }
        #expect(log.wait(for: 1))
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                  body: Array(#"{"name":"Made offline","city":"Boston","country":"US"}"#.utf8)))
        #expect(log.wait { agencyKeys($0.last) == ["~1"] })
        _ = try store.performAndWait(.upload(UploadOptions()))
        #expect(log.wait { agencyKeys($0.last) == ["00000777"] })
    }
}
