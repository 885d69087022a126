import Testing
@_spi(Tool) @testable import OfflineOData

/// Issue 20: the service is not trusted. Links and redirects stay on the service's origin, answers
/// have a size limit, and no header or cookie can carry a line break.
@Suite struct UntrustedServiceTests {
    /// 200,000 bytes of `a`, gzip-compressed to 230 bytes.
    static let gzipBomb: [UInt8] = [31, 139, 8, 0, 147, 228, 7, 107, 2, 255, 237, 193, 49, 1, 0, 0, 0, 194, 160, 172, 235, 95,
                                    194, 12, 254, 64, 1] + [UInt8](repeating: 0, count: 193)
        + [175, 1, 155, 83, 105, 224, 64, 13, 3, 0]

    private func error(_ body: () throws -> Void) -> ODataError? {
        do { try body() } catch let error as ODataError { return error } catch { return nil }
        return nil
    }

    private func credentialed() -> HTTPOptions {
        var options = HTTPOptions()
        options.authentication = .basic(user: "alice", password: "s3cret")
        options.headers = [HTTPHeader("X-Api-Key", "key-1")]
        options.cookies = [HTTPHeader("session", "cookie-1")]
        return options
    }

    // MARK: - Origins

    @Test func originsCompareSchemeHostAndPort() throws {
        let origin = ServiceURL.origin
        #expect(origin("http://Host.example/svc/") == origin("http://host.example:80/x"))
        #expect(origin("https://host/") == origin("https://user:pw@host:443/y?z"))
        #expect(origin("http://host/") != origin("https://host/"))
        #expect(origin("http://host:8080/") != origin("http://host:8081/"))
        #expect(origin("http://[::1]:8080/")?.host == "[::1]")
        #expect(origin("http://evil.example\\@host/") == nil)
        #expect(origin("file:///etc/passwd") == nil)
        #expect(origin("ftp://host/") == nil)
        #expect(origin("http://host:99999/") == nil)
        #expect(ServiceURL.resolveReference("/b?x", against: "http://h:1/a/c?q") == "http://h:1/b?x")
        #expect(ServiceURL.resolveReference("d", against: "http://h:1/a/c?q") == "http://h:1/a/d")
        #expect(ServiceURL.resolveReference("//other/x", against: "https://h/a") == "https://other/x")
        #expect(ServiceURL.resolveReference("http://o:2/", against: "https://h/a") == "http://o:2/")
    }

    // MARK: - Redirects

    @Test func aSameOriginRedirectIsFollowedWithTheCredentials() throws {
        let server = try TestHTTPServer { request in
            request.target == "/old" ? .text(302, "moved", headers: [("Location", "/new")]) : .text(200, "here")
        }
        defer { server.stop() }
        let response = try HTTPTransport(options: credentialed()).send(HTTPRequest(url: server.baseURL + "/old"))
        #expect(response.status == 200 && response.text == "here")
        #expect(server.requests.map(\.target) == ["/old", "/new"])
        #expect(server.requests.last?.header("Authorization") == "Basic YWxpY2U6czNjcmV0")
        #expect(server.requests.last?.header("X-Api-Key") == "key-1")
    }

    @Test func aRedirectToAnotherOriginIsRefusedAndTheOtherOriginGetsNothing() throws {
        let other = try TestHTTPServer { _ in .text(200, "stolen") }
        defer { other.stop() }
        let otherURL = "http://mallory:pw@127.0.0.1:\(other.port)/collect"
        let server = try TestHTTPServer { _ in .text(307, "", headers: [("Location", otherURL)]) }
        defer { server.stop() }
        let transport = try HTTPTransport(options: credentialed())
        let refused = try #require(error { _ = try transport.send(HTTPRequest(method: "POST", url: server.baseURL + "/x", body: [1])) })
        #expect(refused.code == .network)
        #expect(refused.message.contains("redirect"))
        #expect(refused.message.contains("127.0.0.1:\(other.port)/collect"))
        #expect(!refused.message.contains("pw@") && !refused.message.contains("mallory"))
        #expect(other.requests.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test func redirectsToFilesAndLoopsAreRefused() throws {
        let server = try TestHTTPServer { request in
            request.target == "/file" ? .text(302, "", headers: [("Location", "file:///etc/passwd")])
                : .text(302, "", headers: [("Location", "/loop\(request.target.count)")])
        }
        defer { server.stop() }
        let transport = try HTTPTransport()
        let file = try #require(error { _ = try transport.send(HTTPRequest(url: server.baseURL + "/file")) })
        #expect(file.message.contains("file:///etc/passwd") && file.message.contains("not an http or https URL"))
        let loop = try #require(error { _ = try transport.send(HTTPRequest(url: server.baseURL + "/loop")) })
        #expect(loop.message.contains("more than 5 redirects"))
        #expect(server.requests.count == 1 + 6)
    }

    @Test func a303AfterAPostContinuesWithAGet() throws {
        let server = try TestHTTPServer { request in
            request.method == "POST" ? .text(303, "", headers: [("Location", "done")]) : .text(200, "ok")
        }
        defer { server.stop() }
        let response = try HTTPTransport().send(HTTPRequest(method: "POST", url: server.baseURL + "/a/b", body: Array("x".utf8)))
        #expect(response.text == "ok")
        #expect(server.requests.map { "\($0.method) \($0.target)" } == ["POST /a/b", "GET /a/done"])
        #expect(server.requests.last?.body.isEmpty == true)
    }

    @Test func onlyHTTPAndHTTPSAreFetched() throws {
        let refused = try #require(error { _ = try HTTPTransport().send(HTTPRequest(url: "file:///etc/passwd")) })
        #expect(refused.code == .misuse)
    }

    // MARK: - Answer size

    @Test func anAnswerAboveTheLimitIsRefused() throws {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 5000)
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/gzip": .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: Self.gzipBomb)
            default: .respond(status: 200, headers: [], body: big)
            }
        }
        defer { server.stop() }
        var options = HTTPOptions()
        options.maximumResponseSize = 4096
        let transport = try HTTPTransport(options: options)
        for target in ["/plain", "/gzip"] {
            let refused = try #require(error { _ = try transport.send(HTTPRequest(url: server.baseURL + target)) })
            #expect(refused.code == .network)
            #expect(refused.message.contains("larger than 4096 bytes"))
            let streamed = try #require(error { _ = try transport.send(HTTPRequest(url: server.baseURL + target)) { _ in true } })
            #expect(streamed.message.contains("larger than 4096 bytes"))
        }
        // Under the limit the gzip answer is decoded.
        options.maximumResponseSize = 200_000
        transport.update(options)
        let response = try transport.send(HTTPRequest(url: server.baseURL + "/gzip"))
        #expect(response.body.count == 200_000 && response.body.allSatisfy { $0 == UInt8(ascii: "a") })
    }

    // MARK: - Header injection

    @Test func lineBreaksInHeadersAndCookiesAreMisuse() throws {
        let server = try TestHTTPServer { _ in .text(200, "") }
        defer { server.stop() }
        let cases: [(HTTPOptions) -> HTTPOptions] = [
            { var o = $0; o.headers = [HTTPHeader("X-A", "1\r\nX-Evil: 1")]; return o },
            { var o = $0; o.headers = [HTTPHeader("X-A\nB", "1")]; return o },
            { var o = $0; o.headers = [HTTPHeader("X-A", "1\u{0}2")]; return o },
            { var o = $0; o.cookies = [HTTPHeader("c", "1; admin=1")]; return o },
            { var o = $0; o.cookies = [HTTPHeader("c=d", "1")]; return o },
            { var o = $0; o.cookies = [HTTPHeader("c d", "1")]; return o },
            { var o = $0; o.cookies = [HTTPHeader("c", "1\r\n")]; return o },
        ]
        let transport = try HTTPTransport()
        for make in cases {
            let options = make(HTTPOptions())
            #expect(throws: ODataError.self) { try options.validate() }
            #expect(error { _ = try HTTPTransport(options: options) }?.code == .misuse)
            transport.update(options)
            let refused = try #require(error { _ = try transport.send(HTTPRequest(url: server.baseURL + "/")) })
            #expect(refused.code == .misuse)
            #expect(refused.message.contains("'X-A") || refused.message.contains("cookie"))
        }
        // A header the engine builds from what the service sent (an ETag) is checked too.
        transport.update(HTTPOptions())
        let etag = try #require(error {
            _ = try transport.send(HTTPRequest(method: "PATCH", url: server.baseURL + "/A(1)",
                                               headers: [HTTPHeader("If-Match", "W/\"1\"\r\nX-Evil: 1")], body: []))
        })
        #expect(etag.code == .misuse && etag.message.contains("'If-Match'"))
        #expect(server.requests.isEmpty)
    }

    @Test func anETagWithALineBreakIsNotKept() throws {
        let plain = HTTPResponse(status: 200, headers: [HTTPHeader("ETag", "W/\"2\"")], body: [])
        #expect(UploadRecorder.etag(of: plain, answer: nil) == "W/\"2\"")
        let body = try JSONValue.parse(Array(#"{"@odata.etag":"W/\"1\"\r\nX-Evil: 1"}"#.utf8))
        #expect(UploadRecorder.etag(of: HTTPResponse(status: 200, headers: [], body: []), answer: body) == nil)
        let v2 = try JSONValue.parse(Array(#"{"d":{"__metadata":{"etag":"W/\"1\"\n"}}}"#.utf8))
        #expect(UploadRecorder.etag(of: HTTPResponse(status: 200, headers: [], body: []), answer: v2) == nil)
    }

    /// A queued ETag that is not one header line (a store made before pages with such ETags were
    /// refused) stops the `$batch` before it is sent, rather than go without its concurrency check.
    @Test func anETagWithALineBreakIsNeverWrittenIntoABatchPart() throws {
        let hostile = QueuedRequest(id: 1, method: .patch, url: "A('1')", body: "{}", entitySet: "A", entityID: 1,
                                    etag: "W/\"1\"\r\nX-Evil: 1")
        let plan = ChangeSetPlan.plan([hostile], groupByTransaction: false, contentIDReferences: true)
        let refused = try #require(error { _ = try BatchRequestBuilder().build(plan) })
        #expect(refused.code == .misuse && refused.message.contains("'If-Match'"))
        var plain = hostile
        plain.etag = "W/\"1\""
        let built = try BatchRequestBuilder().build(ChangeSetPlan.plan([plain], groupByTransaction: false, contentIDReferences: true))
        #expect(String(decoding: built.body, as: UTF8.self).contains("If-Match: W/\"1\"\r\n"))
    }

    // MARK: - Links of a download

    private func page(_ body: String) -> TestHTTPBehaviour { .text(200, body, headers: [("Content-Type", "application/json")]) }

    private func download(_ server: TestHTTPServer, options: HTTPOptions = HTTPOptions(),
                          deltaLink: String? = nil) throws -> (DownloadOutcome?, ODataError?, RecordingSink) {
        let downloader = Downloader(transport: try HTTPTransport(options: options), serviceRoot: server.baseURL + "/svc/", dialect: .v4)
        var sink = RecordingSink()
        do {
            let outcome = try downloader.download(DefiningRequest(name: "P", url: "People", deltaLink: deltaLink),
                                                  useDelta: deltaLink != nil, into: &sink)
            return (outcome, nil, sink)
        } catch {
            return (nil, error, sink)
        }
    }

    @Test func aNextLinkToAnotherOriginIsRefusedAndNotFetched() throws {
        let other = try TestHTTPServer { _ in .text(200, #"{"value":[]}"#) }
        defer { other.stop() }
        for link in ["http://u:secret@127.0.0.1:\(other.port)/svc/People?$skiptoken=1", "file:///etc/passwd",
                     "https://127.0.0.1:\(other.port)/svc/People"] {
            let server = try TestHTTPServer { [self] _ in page(#"{"value":[{"ID":1}],"@odata.nextLink":"\#(link)"}"#) }
            defer { server.stop() }
            let (outcome, refused, _) = try download(server, options: credentialed())
            #expect(outcome == nil)
            let message = try #require(refused?.message)
            #expect(message.contains("the next link on page 1 of 'P'"))
            #expect(message.contains(redactedURL(link)) && !message.contains("secret"))
            #expect(server.requests.count == 1)
        }
        #expect(other.requests.isEmpty)
    }

    @Test func aDeltaLinkToAnotherOriginIsRefused() throws {
        let server = try TestHTTPServer { [self] _ in page(#"{"value":[{"ID":1}],"@odata.deltaLink":"http://127.0.0.2:1/svc/People?$deltatoken=1"}"#) }
        defer { server.stop() }
        let (_, received, _) = try download(server)
        #expect(received?.message.contains("the delta link on page 1 of 'P' 'http://127.0.0.2:1/svc/People?$deltatoken=1'") == true)
        // A stored one is not followed either.
        let (_, stored, _) = try download(server, deltaLink: "http://127.0.0.2:1/svc/People?$deltatoken=0")
        #expect(stored?.message.contains("the delta link of 'P'") == true)
        #expect(server.requests.count == 1)
    }

    @Test func aNextLinkToAPageAlreadyFollowedIsRefused() throws {
        let server = try TestHTTPServer { [self] request in
            request.target == "/svc/People"
                ? page(#"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=1"}"#)
                : page(#"{"value":[{"ID":2}],"@odata.nextLink":"People?$skiptoken=1"}"#)
        }
        defer { server.stop() }
        let (outcome, refused, sink) = try download(server)
        #expect(outcome == nil)
        #expect(refused?.message.contains("repeats a page this download already asked for") == true)
        #expect(sink.pages.count == 2)
        #expect(server.requests.map(\.target) == ["/svc/People", "/svc/People?$skiptoken=1"])
    }

    @Test func theMaximumNumberOfPagesComesFromTheOptions() throws {
        let server = try TestHTTPServer { [self] request in
            page(#"{"value":[{"ID":1}],"@odata.nextLink":"People?$skiptoken=\#(request.target.count)"}"#)
        }
        defer { server.stop() }
        var options = HTTPOptions()
        options.maximumPages = 3
        let (outcome, refused, sink) = try download(server, options: options)
        #expect(outcome == nil)
        #expect(refused?.message.contains("more than 3 pages") == true)
        #expect(sink.pages.count == 3)
    }
}
