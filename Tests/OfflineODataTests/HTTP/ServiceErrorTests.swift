import Testing
@_spi(Tool) @testable import OfflineOData

/// A service's error message is quoted, never trusted: no terminal escape sequences, a size cap.
@Suite struct ServiceErrorTests {
    static func answer(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPHeader("Content-Type", "application/json")], body: Array(body.utf8))
    }

    @Test func theServicesWordsAreQuotedWithTheirCodeV4AndV2() {
        let v4 = ServiceError.from(Self.answer(400, #"{"error":{"code":"E1","message":"Bad name"}}"#), request: "PATCH X", longestMessage: 1_000)
        #expect(v4.message == "PATCH X: the service answered 400: Bad name (E1)")
        let v2 = ServiceError.from(Self.answer(404, #"{"error":{"code":"E2","message":{"lang":"en","value":"Gone"}}}"#), request: "GET Y", longestMessage: 1_000)
        #expect(v2.message == "GET Y: the service answered 404: Gone (E2)" && v2.code == .notFound && v2.httpStatus == 404)
    }

    /// A refusal keeps its answer's headers, for callers that need them (the ETag after a 412).
    @Test func theRefusalKeepsTheHeadersOfItsAnswer() {
        var answer = Self.answer(412, #"{"error":{"code":"E3","message":"Changed"}}"#)
        answer.headers.append(HTTPHeader("ETag", "W/\"9\""))
        let error = ServiceError.from(answer, request: "PATCH X", longestMessage: 1_000)
        #expect(error.code == .http && error.httpStatus == 412)
        #expect(error.httpHeaders == answer.headers)
    }

    @Test func escapeSequencesAndLineBreaksDoNotReachATerminal() {
        let hostile = #"{"error":{"message":"\u001b[2J\u001b]0;owned\u0007red\r\nline\u009b"}}"#
        let error = ServiceError.from(Self.answer(400, hostile), request: "POST Z", longestMessage: 1_000)
        #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(error.message.hasSuffix(" [2J ]0;owned red  line "))
    }

    @Test func aHugeMessageIsCut() {
        let long = String(repeating: "x", count: 1_000_000)
        let error = ServiceError.from(Self.answer(400, #"{"error":{"message":"\#(long)"}}"#), request: "POST Z",
                                      longestMessage: ServiceError.defaultLongestMessage)
        #expect(error.message == "POST Z: the service answered 400: " + String(repeating: "x", count: 1_000) + "...")
    }

    /// ``HTTPOptions/maximumMessageLength`` is the transport's: what it says reaches the error.
    @Test func theTransportsMessageLengthHoldsTheMessage() throws {
        var options = HTTPOptions()
        options.maximumMessageLength = 7
        let transport = try HTTPTransport(options: options)
        let error = transport.serviceError(Self.answer(400, #"{"error":{"message":"abcdefghij"}}"#), request: "GET Q")
        #expect(error.message == "GET Q: the service answered 400: abcdefg...")
        options.maximumMessageLength = 0
        #expect(throws: ODataError.self) { try options.validate() }
    }
}
