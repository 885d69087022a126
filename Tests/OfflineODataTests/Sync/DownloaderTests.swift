#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A sink that reads the paging fields of V4 and V2 pages and counts their entities.
struct RecordingSink: PageSink {
    var pages: [String] = []
    var failOnPage: Int?

    mutating func accept(page input: JSONInput) throws(ODataError) -> PageSummary {
        let page = Array(input.buffer)
        pages.append(String(decoding: page, as: UTF8.self))
        if let failOnPage, pages.count == failOnPage { throw ODataError(.semantic, "the sink refused page \(failOnPage)") }
        let document = try JSONValue.parse(page)
        if let d = document["d"] {
            return PageSummary(entities: d["results"]?.arrayValue?.count ?? 0, nextLink: d["__next"]?.stringValue,
                               deltaLink: d["__delta"]?.stringValue, count: d["__count"]?.stringValue.flatMap { Int($0) })
        }
        return PageSummary(entities: document["value"]?.arrayValue?.count ?? 0,
                           nextLink: document["@odata.nextLink"]?.stringValue,
                           deltaLink: document["@odata.deltaLink"]?.stringValue,
                           count: document["@odata.count"]?.int64Value.map { Int($0) })
    }
}

@Suite struct DownloaderTests {
    private func page(_ ids: [Int], next: String? = nil, delta: String? = nil) -> TestHTTPBehaviour {
        var body = #"{"@odata.context":"$metadata#People","value":["#
        body += ids.map { #"{"ID":\#($0)}"# }.joined(separator: ",") + "]"
        if let next { body += #","@odata.nextLink":"\#(next)""# }
        if let delta { body += #","@odata.deltaLink":"\#(delta)""# }
        return .text(200, body + "}", headers: [("Content-Type", "application/json")])
    }

    private func downloader(_ server: TestHTTPServer, _ dialect: Dialect = .v4) throws -> Downloader {
        Downloader(transport: try HTTPTransport(), serviceRoot: server.baseURL + "/svc/", dialect: dialect, preferredPageSize: 2)
    }

    @Test func followsRelativeAndAbsoluteNextLinksAndKeepsTheNewestDeltaLink() throws {
        let server = try TestHTTPServer { request in
            switch request.target {
            case let target where target.hasPrefix("/svc/People?$filter"):
                return .text(200, #"{"value":[{"ID":1},{"ID":2}],"@odata.nextLink":"People?$skiptoken=2","@odata.deltaLink":"People?$deltatoken=first"}"#)
            case "/svc/People?$skiptoken=2":
                return .text(200, #"{"value":[{"ID":3},{"ID":4}],"@odata.nextLink":"/svc/People?$skiptoken=4"}"#)
            case "/svc/People?$skiptoken=4":
                return .text(200, #"{"value":[{"ID":5}],"@odata.deltaLink":"People?$deltatoken=last"}"#)
            default:
                return .text(404, "no \(request.target)")
            }
        }
        defer { server.stop() }
        var sink = RecordingSink()
        var reports: [DownloadProgress] = []
        let outcome = try downloader(server).download(DefiningRequest(name: "P", url: "People?$filter=Name eq 'O''Neil'"),
                                                      useDelta: true, into: &sink) { reports.append($0); return true }
        #expect(outcome.pages == 3 && outcome.entities == 5 && !outcome.isDelta)
        #expect(outcome.deltaLink == "People?$deltatoken=last")
        #expect(reports.map(\.entities) == [2, 4, 5])
        let requests = server.requests
        #expect(requests.first?.target == "/svc/People?$filter=Name%20eq%20'O''Neil'")
        #expect(requests.allSatisfy { $0.header("Prefer") == "odata.track-changes,odata.maxpagesize=2" })
        #expect(requests.allSatisfy { $0.header("OData-MaxVersion") == "4.01" })
    }

    @Test func aDeltaDownloadStartsAtTheDeltaLink() throws {
        let server = try TestHTTPServer { request in
            request.target == "/svc/People?$deltatoken=abc"
                ? .text(200, #"{"value":[{"ID":9}],"@odata.deltaLink":"People?$deltatoken=def"}"#)
                : .text(404, "")
        }
        defer { server.stop() }
        var sink = RecordingSink()
        let request = DefiningRequest(name: "P", url: "People", deltaLink: "People?$deltatoken=abc")
        let outcome = try downloader(server).download(request, useDelta: true, into: &sink)
        #expect(outcome.isDelta && outcome.entities == 1 && outcome.deltaLink == "People?$deltatoken=def")
    }

    @Test func readsV2PagesAndSendsV2Headers() throws {
        let first = #"{"d":{"results":[{"ID":1},{"ID":2}],"__count":"3","__next":"Set?$skiptoken=2"}}"#
        let second = #"{"d":{"results":[{"ID":3}],"__delta":"/svc/Set?!deltatoken='x'"}}"#
        let server = try TestHTTPServer { request in
            request.target.contains("skiptoken") ? .text(200, second) : .text(200, first)
        }
        defer { server.stop() }
        var sink = RecordingSink()
        var expected: [Int?] = []
        let outcome = try downloader(server, .v2).download(DefiningRequest(name: "S", url: "Set?$inlinecount=allpages"),
                                                           useDelta: false, into: &sink) { expected.append($0.expectedEntities); return true }
        #expect(outcome.entities == 3 && outcome.pages == 2)
        #expect(outcome.deltaLink == "/svc/Set?!deltatoken='x'")
        #expect(expected == [3, 3])  // the total announced on the first page is kept for the later ones
        #expect(outcome.bytes == first.utf8.count + second.utf8.count && outcome.expectedEntities == 3)
        #expect(server.requests.first?.header("Accept") == "application/json")
        #expect(server.requests.first?.header("Prefer") == nil)
    }

    @Test(arguments: [
        (500, #"{"error":{"code":"BOOM","message":"database is down"}}"#, "database is down (BOOM)", ODataError.Code.http),
        (403, #"{"error":{"code":"/IWBEP/CX_MGW_BUSI_EXCEPTION","message":{"lang":"en","value":"No authorization"}}}"#,
         "No authorization", .http),
        (404, "<html><body>Not here</body></html>", "<html><body>Not here</body></html>", .notFound),
    ])
    func serviceErrorsCarryTheServicesWords(status: Int, body: String, expected: String, code: ODataError.Code) throws {
        let server = try TestHTTPServer { _ in .text(status, body) }
        defer { server.stop() }
        var sink = RecordingSink()
        #expect { try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, into: &sink) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == code && error.httpStatus == status && error.message.contains(expected)
        }
        #expect(sink.pages.isEmpty)
    }

    @Test func progressCanStopAndSinkErrorsStopTheDownload() throws {
        // Each answer links a page not asked for yet (a link that repeats one is refused first).
        let served = Protected(0)
        let server = try TestHTTPServer { _ in
            let count = served.withLock { count -> Int in
                count += 1
                return count
            }
            return .text(200, #"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=\#(count)"}"#)
        }
        defer { server.stop() }
        var sink = RecordingSink()
        #expect { try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, into: &sink) { $0.pages < 3 } } throws: {
            ($0 as? ODataError)?.code == .aborted
        }
        #expect(sink.pages.count == 3)
        var failing = RecordingSink(failOnPage: 2)
        #expect { try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, into: &failing) } throws: {
            guard let error = $0 as? ODataError else { return false }
            // The sink's own message, after the request and the page it could not take.
            return error.code == .semantic && error.message.hasPrefix("GET \(server.baseURL)/svc/People?$skiptoken=")
                && error.message.hasSuffix("(page 2 of 'P'): the sink refused page 2")
        }
    }

    /// A sink that, on the first page, waits for the service to be asked for the second one.
    struct WaitingSink: PageSink {
        let server: TestHTTPServer
        var inner = RecordingSink()
        var requestsSeenDuringFirstPage = 0

        mutating func accept(page: JSONInput) throws(ODataError) -> PageSummary {
            if inner.pages.isEmpty {
                _ = server.waitForRequests(2, seconds: 5)
                requestsSeenDuringFirstPage = server.requests.count
            }
            return try inner.accept(page: page)
        }
    }

    @Test func fetchesTheNextPageWhileThisOneIsStored() throws {
        let server = try TestHTTPServer { request in
            request.target.hasSuffix("skiptoken=1")
                ? .text(200, #"{"value":[{"ID":2}]}"#)
                : .text(200, #"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=1"}"#)
        }
        defer { server.stop() }
        var sink = WaitingSink(server: server)
        let outcome = try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, into: &sink)
        #expect(outcome.pages == 2 && outcome.entities == 2)
        #expect(sink.requestsSeenDuringFirstPage == 2)
        #expect(server.requests.count == 2)
    }

    /// A sink whose reading of the first page names another next link than the page's text.
    struct RedirectingSink: PageSink {
        var inner = RecordingSink()
        mutating func accept(page: JSONInput) throws(ODataError) -> PageSummary {
            var summary = try inner.accept(page: page)
            if inner.pages.count == 1 { summary.nextLink = "People?$skiptoken=b" }
            return summary
        }
    }

    @Test func thePagesOwnReadingDecidesWhichPageComesNext() throws {
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/svc/People": return .text(200, #"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=a"}"#)
            case "/svc/People?$skiptoken=a": return .text(200, #"{"value":[{"ID":66}]}"#)
            default: return .text(200, #"{"value":[{"ID":2}]}"#)
            }
        }
        defer { server.stop() }
        var sink = RedirectingSink()
        let outcome = try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, into: &sink)
        #expect(outcome.pages == 2)
        #expect(sink.inner.pages.last == #"{"value":[{"ID":2}]}"#)
    }

    @Test func scansPagesForTheirNextLink() {
        func scan(_ text: String) -> String? { NextLinkScanner.nextLink(in: Array(text.utf8)) }
        #expect(scan(#"{"value":[{"ID":1,"@odata.nextLink":"no"}],"@odata.nextLink":"People?$skiptoken=1"}"#) == "People?$skiptoken=1")
        #expect(scan(#"{"@odata.nextLink":"first","value":[]}"#) == "first")
        #expect(scan(#"{"odata.nextLink":"v3","value":[]}"#) == "v3")
        #expect(scan(#"{"d":{"results":[{"__next":"no"}],"__next":"Set?$skiptoken='x'"}}"#) == "Set?$skiptoken='x'")
        #expect(scan(#"{"value":[],"@odata.nextLink":"a\/b"}"#) == "a/b")
        #expect(scan(#"{"value":[{"ID":1}]}"#) == nil)
        #expect(scan(#"{"d":[{"ID":1}]}"#) == nil)
        #expect(scan(#"[{"ID":1}]"#) == nil)
        #expect(scan(#"{"value":[{"ID":1}"#) == nil)
        #expect(scan(#"{"@odata.nextLink":5}"#) == nil)
        #expect(scan(#"{"value":[],"@odata.nextLink":"a\u0041"}"#) == nil)
        // Only near the page's ends: first the last few kilobytes, then the first.
        let entities = String(repeating: #"{"ID":1,"Name":"padding padding padding"},"#, count: 300) + #"{"ID":2}"#
        #expect(scan(#"{"@odata.nextLink":"head","value":["# + entities + "]}") == "head")
        #expect(scan(#"{"value":["# + entities + #"],"@odata.nextLink":"tail"}"#) == "tail")
        #expect(scan(#"{"value":["# + entities + #"],"@odata.nextLink":"middle","value2":["# + entities + "]}") == nil)
    }

    @Test func resolvesAndEncodesURLs() {
        #expect(ServiceURL.resolve("People?$filter=a eq 'b c'", against: "http://h:1/svc") == "http://h:1/svc/People?$filter=a%20eq%20'b%20c'")
        #expect(ServiceURL.resolve("/other/X", against: "https://h/svc/") == "https://h/other/X")
        #expect(ServiceURL.resolve("https://elsewhere/Y?$skiptoken=1", against: "http://h/svc/") == "https://elsewhere/Y?$skiptoken=1")
        #expect(ServiceURL.encoded("at gt 2024-01-01T10:00:00+02:00") == "at%20gt%202024-01-01T10:00:00%2B02:00")
        #expect(ServiceURL.encoded("Grüße%20") == "Gr%C3%BC%C3%9Fe%20")
    }

    @Test func aResumedDownloadStartsAtTheKeptNextLinkAndCountsThePagesBeforeIt() throws {
        let server = try TestHTTPServer { request in
            request.target == "/svc/People?$skiptoken=4"
                ? .text(200, #"{"value":[{"ID":5}]}"#) : .text(404, "no \(request.target)")
        }
        defer { server.stop() }
        var sink = RecordingSink()
        let root = server.baseURL + "/svc/"
        let point = DownloadResumePoint(definingRequest: "P", url: "People", serviceRoot: root, isDelta: false,
                                        nextLink: "People?$skiptoken=4", pages: 2, entities: 4,
                                        deltaLink: "People?$deltatoken=kept", startedAt: 0)
        var reports: [DownloadProgress] = []
        let outcome = try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false,
                                                      resuming: point, into: &sink) { reports.append($0); return true }
        #expect(server.requests.map(\.target) == ["/svc/People?$skiptoken=4"])
        #expect(outcome.pages == 3 && outcome.entities == 5 && outcome.fetchedPages == 1 && outcome.resumedAtPage == 3)
        #expect(outcome.deltaLink == "People?$deltatoken=kept")
        #expect(reports.map(\.resumedAtPage) == [3])
    }

    @Test func aKeptNextLinkOffTheServicesOriginIsNotFollowed() throws {
        let server = try TestHTTPServer { _ in .text(200, #"{"value":[]}"#) }
        defer { server.stop() }
        var sink = RecordingSink()
        let point = DownloadResumePoint(definingRequest: "P", url: "People", serviceRoot: server.baseURL + "/svc/",
                                        isDelta: false, nextLink: "http://elsewhere.invalid/People?$skiptoken=4",
                                        pages: 2, entities: 4, startedAt: 0)
        #expect(throws: ODataError.self) {
            try downloader(server).download(DefiningRequest(name: "P", url: "People"), useDelta: false, resuming: point, into: &sink)
        }
        #expect(server.requests.isEmpty)
    }

}
