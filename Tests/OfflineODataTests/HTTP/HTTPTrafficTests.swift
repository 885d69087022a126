import Testing
@_spi(Tool) @testable import OfflineOData

/// The transport counts the bodies it moves (an upload's progress reports its share of them).
@Suite struct HTTPTrafficTests {
    @Test func countsTheBodiesSentAndReceivedOverItsLife() throws {
        let server = try TestHTTPServer { request in
            request.method == "GET" ? .text(200, #"{"value":[1,2,3]}"#) : .text(201, #"{"ID":1}"#)
        }
        defer { server.stop() }
        let transport = try HTTPTransport()
        #expect(transport.traffic == HTTPTraffic())
        let body = Array(#"{"Name":"Fly & Co"}"#.utf8)
        _ = try transport.send(HTTPRequest(method: "POST", url: server.baseURL + "/A", body: body))
        let afterPost = transport.traffic
        #expect(afterPost == HTTPTraffic(sent: body.count, received: #"{"ID":1}"#.utf8.count))
        _ = try transport.send(HTTPRequest(url: server.baseURL + "/A"))
        #expect(transport.traffic.since(afterPost) == HTTPTraffic(sent: 0, received: #"{"value":[1,2,3]}"#.utf8.count))
        #expect(server.requests.map(\.body) == [body, []])
    }

    @Test func aDifferenceIsNeverNegative() {
        #expect(HTTPTraffic(sent: 1, received: 2).since(HTTPTraffic(sent: 5, received: 5)) == HTTPTraffic())
    }
}
