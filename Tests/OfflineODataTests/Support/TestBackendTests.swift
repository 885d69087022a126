import Testing
@_spi(Tool) @testable import OfflineOData

/// The real test services start from Swift and answer (Tests/backends/README.md).
@Suite struct TestBackendTests {
    @Test func v4StartsAndAnswersTheDefiningRequest() throws {
        let backend = try TestBackend.start(.v4, size: "small")
        defer { backend.stop() }
        #expect(backend.serviceRoot.hasPrefix("http://127.0.0.1:"))
        #expect(backend.serviceRoot.hasSuffix("/"))
        let answer = try backend.get("TravelagencyCollection?$filter=country eq 'US'")
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 200, "\(text)")
        #expect(text.contains("\"value\""))
        #expect(text.contains("\"US\""))
    }

    @Test func v2StartsAndAnswersTheDefiningRequestInJSON() throws {
        let backend = try TestBackend.start(.v2, size: "small")
        defer { backend.stop() }
        #expect(backend.serviceRoot.hasSuffix("/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/"))
        let answer = try backend.get("TravelagencyCollection?$filter=country eq 'US'")
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 200, "\(text)")
        #expect(text.contains("\"results\""))
    }

    @Test func resetAnswers204AndStopIsIdempotent() throws {
        let backend = try TestBackend.start(.v2, size: "tiny", csrf: false)
        #expect(backend.origin + "/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/" == backend.serviceRoot)
        let response = try backend.send(HTTPRequest(method: "POST", url: backend.origin + "/_reset", body: []))
        #expect(response.status == 204)
        try backend.reset()
        // The launcher must take SIGTERM at once (not the SIGKILL fallback after 10 s): it would not
        // if it inherited the signal mask of the test's thread.
        let stopping = ContinuousClock.now
        backend.stop()
        #expect(ContinuousClock.now - stopping < .seconds(5))
        backend.stop()
        #expect(throws: TestBackendError.self) { try backend.get("TravelagencyCollection") }
    }
}
