import Testing
@_spi(Tool) @testable import OfflineOData
#if canImport(Glibc)
import Glibc
#endif

@Suite struct HTTPTransportTests {
    @discardableResult
    private func withServer<T>(
        _ handler: @escaping @Sendable (ReceivedRequest) -> TestHTTPBehaviour,
        _ body: (TestHTTPServer) throws -> T
    ) throws -> T {
        let server = try TestHTTPServer(handler: handler)
        defer { server.stop() }
        return try body(server)
    }

    @Test func getReturnsStatusHeadersAndBody() throws {
        try withServer({ _ in .text(200, #"{"value":[]}"#, headers: [("Content-Type", "application/json"), ("OData-Version", "4.0")]) }) { server in
            let transport = try HTTPTransport()
            let response = try transport.send(HTTPRequest(url: server.baseURL + "/People?$top=1"))
            #expect(response.status == 200)
            #expect(response.text == #"{"value":[]}"#)
            #expect(response.header("odata-version") == "4.0")
            #expect(response.header("CONTENT-TYPE") == "application/json")
            let request = try #require(server.requests.first)
            #expect(request.method == "GET")
            #expect(request.target == "/People?$top=1")
            #expect(request.header("User-Agent") == "OfflineOData/\(OfflineODataVersion.string)")
            #expect(request.header("Accept-Encoding")?.contains("gzip") == true)
        }
    }

    @Test func reusesTheConnection() throws {
        try withServer({ _ in .text(200, "ok") }) { server in
            let transport = try HTTPTransport()
            for _ in 0..<5 { _ = try transport.send(HTTPRequest(url: server.baseURL + "/x")) }
            #expect(server.requests.count == 5)
            #expect(server.connectionCount == 1)
        }
    }

    // MARK: - Changes on kept-alive connections (issue 38, target 6)

    @Test func changesGoOnTheKeptAliveConnection() throws {
        try withServer({ _ in .text(201, "{}") }) { server in
            let transport = try HTTPTransport()
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/x"))
            for method in ["POST", "PATCH", "PUT", "DELETE", "MERGE"] {
                _ = try transport.send(HTTPRequest(method: method, url: server.baseURL + "/A(1)", body: Array("{}".utf8)))
            }
            #expect(server.requests.count == 6)
            // Only without the resend guard (a libcurl before 7.80) does each change get a connection of its own.
            #expect(server.connectionCount == (HTTPTransport.refusesResend ? 1 : 6))
        }
    }

    /// Each answer is acknowledged at once (``AnswerAcknowledgement``): every request finds the
    /// socket it went out on, the one it opened and the kept-alive one it reused alike.
    @Test func eachAnswerFindsTheSocketItCameOn() throws {
        try withServer({ _ in .text(201, "{}") }) { server in
            let transport = try HTTPTransport()
            for _ in 0..<2 { _ = try transport.send(HTTPRequest(url: server.baseURL + "/x")) }
            for method in ["POST", "PATCH", "DELETE"] {
                _ = try transport.send(HTTPRequest(method: method, url: server.baseURL + "/A(1)", body: Array("{}".utf8)))
            }
            #expect(server.requests.count == 5)
            #expect(transport.answersAcknowledgedQuickly == (HTTPTransport.refusesResend ? 5 : 0))
        }
    }

    /// The worst moment: the service has the change, then closes the reused connection before any
    /// byte of its answer. libcurl would send it again on a new connection; the transport refuses.
    @Test(arguments: ["POST", "PATCH", "PUT", "DELETE", "MERGE"])
    func aChangeIsNeverSentTwiceWhenTheReusedConnectionCloses(method: String) throws {
        try withServer({ request in request.target == "/closes" ? .close : .text(200, "{}") }) { server in
            let transport = try HTTPTransport()
            _ = try transport.send(HTTPRequest(method: method, url: server.baseURL + "/first", body: Array("{}".utf8)))
            #expect { try transport.send(HTTPRequest(method: method, url: server.baseURL + "/closes", body: Array("{}".utf8))) } throws: {
                guard let error = $0 as? ODataError else { return false }
                return error.code == .network && (error.message.contains("was not sent again") || !HTTPTransport.refusesResend)
            }
            #expect(server.requests.map(\.target) == ["/first", "/closes"])
            // The transport stays usable: the next change goes on a new connection.
            _ = try transport.send(HTTPRequest(method: method, url: server.baseURL + "/after", body: Array("{}".utf8)))
            #expect(server.requests.map(\.target) == ["/first", "/closes", "/after"])
        }
    }

    /// A read may be sent again by libcurl after a reused connection closed: nothing changes twice.
    @Test func aReadOnAReusedConnectionThatClosedIsSentAgain() throws {
        let closedOnce = Protected(false)
        try withServer({ request in
            guard request.target == "/closes" else { return .text(200, "{}") }
            return closedOnce.withLock { closed in
                defer { closed = true }
                return closed ? .text(200, "again") : .close
            }
        }) { server in
            let transport = try HTTPTransport()
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/first"))
            let response = try transport.send(HTTPRequest(url: server.baseURL + "/closes"))
            #expect(response.text == "again")
            #expect(server.requests.map(\.target) == ["/first", "/closes", "/closes"])
        }
    }

    @Test func sendsBodiesWithEachMethod() throws {
        try withServer({ _ in .text(204, "") }) { server in
            let transport = try HTTPTransport()
            let json = Array(#"{"NAME":"Fly & Co"}"#.utf8)
            for method in ["POST", "PUT", "PATCH", "MERGE"] {
                let response = try transport.send(HTTPRequest(method: method, url: server.baseURL + "/A(1)", body: json))
                #expect(response.status == 204)
            }
            _ = try transport.send(HTTPRequest(method: "DELETE", url: server.baseURL + "/A(1)"))
            _ = try transport.send(HTTPRequest(method: "POST", url: server.baseURL + "/empty"))
            let requests = server.requests
            #expect(requests.map(\.method) == ["POST", "PUT", "PATCH", "MERGE", "DELETE", "POST"])
            for request in requests.prefix(4) { #expect(request.body == json) }
            #expect(requests[4].body.isEmpty)
            #expect(requests[5].body.isEmpty)
            #expect(requests[0].header("Expect") == nil)
        }
    }

    @Test func requestHeadersReplaceTheTransportsHeaders() throws {
        try withServer({ _ in .text(200, "") }) { server in
            var options = HTTPOptions()
            options.headers = [HTTPHeader("Accept", "application/xml"), HTTPHeader("sap-client", "001")]
            let transport = try HTTPTransport(options: options)
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/", headers: [HTTPHeader("accept", "application/json")]))
            let request = try #require(server.requests.first)
            #expect(request.header("Accept") == "application/json")
            #expect(request.header("sap-client") == "001")
            #expect(request.headers.filter { $0.name.lowercased() == "accept" }.count == 1)
        }
    }

    @Test func authenticatesWithBasicAndBearer() throws {
        try withServer({ _ in .text(200, "") }) { server in
            var options = HTTPOptions()
            options.authentication = .basic(user: "alice", password: "s3cret")
            let transport = try HTTPTransport(options: options)
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/"))
            options.authentication = .bearer(token: "tok-123")
            transport.update(options)
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/"))
            let requests = server.requests
            // base64("alice:s3cret")
            #expect(requests.first?.header("Authorization") == "Basic YWxpY2U6czNjcmV0")
            #expect(requests.last?.header("Authorization") == "Bearer tok-123")
        }
    }

    @Test func keepsTheServicesCookiesAndSendsConfiguredOnes() throws {
        try withServer({ request in
            request.target == "/login" ? .text(200, "", headers: [("Set-Cookie", "SAP_SESSIONID=abc; Path=/")]) : .text(200, "")
        }) { server in
            var options = HTTPOptions()
            options.cookies = [HTTPHeader("sap-usercontext", "sap-client=001")]
            let transport = try HTTPTransport(options: options)
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/login"))
            _ = try transport.send(HTTPRequest(url: server.baseURL + "/next"))
            let cookie = try #require(server.requests.last?.header("Cookie"))
            #expect(cookie.contains("SAP_SESSIONID=abc"))
            #expect(cookie.contains("sap-usercontext=sap-client=001"))
        }
    }

    @Test func anHTTPErrorStatusIsAResponseNotAnError() throws {
        try withServer({ _ in .text(500, #"{"error":{"code":"X","message":"boom"}}"#) }) { server in
            let response = try HTTPTransport().send(HTTPRequest(url: server.baseURL + "/"))
            #expect(response.status == 500)
            #expect(response.text.contains("boom"))
        }
    }

    @Test func aClosedPortIsANetworkErrorWithoutCredentials() throws {
        let server = try TestHTTPServer { _ in .close }
        let port = server.port
        server.stop()
        var options = HTTPOptions()
        options.authentication = .basic(user: "alice", password: "s3cret")
        let transport = try HTTPTransport(options: options)
        #expect { try transport.send(HTTPRequest(url: "http://bob:hunter2@127.0.0.1:\(port)/x")) } throws: {
            guard let error = $0 as? ODataError else { return false }
            return error.code == .network && error.message.contains("cannot connect")
                && !error.message.contains("hunter2") && !error.message.contains("s3cret") && !error.message.contains("bob")
        }
    }

    @Test func aServerThatHangsTimesOut() throws {
        try withServer({ _ in .hang(seconds: 3) }) { server in
            var options = HTTPOptions()
            options.requestTimeout = 0.3
            let started = monotonicNanoseconds()
            #expect { try HTTPTransport(options: options).send(HTTPRequest(url: server.baseURL + "/slow")) } throws: {
                guard let error = $0 as? ODataError else { return false }
                return error.code == .network && error.message.contains("timed out")
            }
            #expect(monotonicNanoseconds() - started < 2_500_000_000)
        }
    }

    @Test func aConnectionCutMidBodyIsANetworkError() throws {
        try withServer({ _ in .cut(announced: 10_000, body: Array(#"{"value":[{"a":1},"#.utf8)) }) { server in
            #expect { try HTTPTransport().send(HTTPRequest(url: server.baseURL + "/page")) } throws: {
                guard let error = $0 as? ODataError else { return false }
                return error.code == .network && error.message.contains("broke")
            }
        }
    }

    @Test func aRequestCanBeCancelledFromAnotherThread() throws {
        try withServer({ _ in .hang(seconds: 5) }) { server in
            let transport = try HTTPTransport()
            let cancellation = HTTPCancellation()
            var thread = pthread_t()
            startThread(&thread) {
                // Cancelled while the request hangs: once the server has it.
                _ = server.waitForRequests(1)
                cancellation.cancel()
            }
            let started = monotonicNanoseconds()
            #expect { try transport.send(HTTPRequest(url: server.baseURL + "/x"), cancellation: cancellation) } throws: {
                ($0 as? ODataError)?.code == .aborted
            }
            pthread_join(thread, nil)
            #expect(monotonicNanoseconds() - started < 3_000_000_000)
        }
    }

    @Test func streamsTheBodyInChunksAndCanStop() throws {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 1_000_000)
        try withServer({ _ in .respond(status: 200, headers: [], body: big) }) { server in
            let transport = try HTTPTransport()
            var received = 0
            var chunks = 0
            let response = try transport.send(HTTPRequest(url: server.baseURL + "/big")) { chunk in
                received += chunk.count
                chunks += 1
                return true
            }
            #expect(received == big.count)
            #expect(chunks > 1)
            #expect(response.body.isEmpty)
            #expect { try transport.send(HTTPRequest(url: server.baseURL + "/big")) { _ in false } } throws: {
                ($0 as? ODataError)?.code == .aborted
            }
        }
    }

    @Test func badMethodsAndURLsAreMisuse() throws {
        let transport = try HTTPTransport()
        #expect { try transport.send(HTTPRequest(method: "get me", url: "http://127.0.0.1:9/")) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
        #expect { try transport.send(HTTPRequest(url: "nota://url")) } throws: {
            ($0 as? ODataError)?.code == .misuse
        }
    }

    @Test func redactsUserInfoFromURLs() {
        #expect(redactedURL("https://user:pw@host:8443/sap/opu?x=1") == "https://host:8443/sap/opu?x=1")
        #expect(redactedURL("http://host/path@x") == "http://host/path@x")
        #expect(redactedURL("no scheme") == "no scheme")
    }
}
