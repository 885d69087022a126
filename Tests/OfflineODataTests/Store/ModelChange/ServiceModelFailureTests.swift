import Testing
@_spi(Tool) @testable import OfflineOData

/// A check that cannot read the service's `$metadata`: an answer that may pass by itself stays the
/// error a page would give; one that will not names `$metadata` and the way to skip the check.
@Suite struct ServiceModelFailureTests {
    /// The check of a store whose service answers `$metadata` with `status`, `body`, `contentType`.
    func checkError(status: Int, body: String = #"{"error":{"code":"X","message":"no"}}"#,
                    contentType: String = "application/json") throws -> ODataError {
        let server = try TestHTTPServer { _ in .text(status, body, headers: [("Content-Type", contentType)]) }
        defer { server.stop() }
        let folder = TemporaryFolder()
        let store = try LocalStore.create(path: folder.file("failure.store"), metadata: FlightSample.v4Metadata,
                                          serviceRoot: server.baseURL + "/svc/")
        defer { store.close() }
        do {
            _ = try store.checkServiceModel(cancellation: nil)
        } catch {
            return error
        }
        Issue.record("the check of a $metadata answered \(status) passed")
        return ODataError(.internalError, "passed")
    }

    @Test(arguments: [503, 500, 502, 504, 429, 408, 401])
    func anAnswerThatMayPassStaysTheServicesError(_ status: Int) throws {
        let error = try checkError(status: status)
        #expect(error.code == .http && error.httpStatus == status, "\(error)")
        #expect(error.message.contains("$metadata") && error.message.contains("answered \(status)"))
        #expect(!error.message.contains("checksServiceModel"))
    }

    @Test(arguments: [404, 403, 405, 410, 501, 400])
    func aMetadataTheServiceDoesNotServeIsAMetadataErrorNamingTheWayOut(_ status: Int) throws {
        let error = try checkError(status: status)
        #expect(error.code == .metadata && error.httpStatus == status, "\(error)")
        #expect(error.message.contains("the service does not serve its $metadata"))
        #expect(error.message.contains("answered \(status)") && error.message.contains("checksServiceModel = false"))
    }

    @Test func aLoginPageAnsweredOKIsAMetadataErrorNamingTheWayOut() throws {
        let error = try checkError(status: 200, body: "<html><body>Please log in</body></html>", contentType: "text/html")
        #expect(error.code == .metadata && error.httpStatus == nil, "\(error)")
        #expect(error.message.contains("the service's $metadata is not a metadata document"))
        #expect(error.message.contains("--no-model-check"))
    }

    @Test func noConnectionStaysANetworkError() throws {
        let folder = TemporaryFolder()
        // A port nothing listens on: the server is stopped before the check.
        let server = try TestHTTPServer { _ in .text(200, "") }
        let root = server.baseURL + "/svc/"
        server.stop()
        let store = try LocalStore.create(path: folder.file("unreachable.store"), metadata: FlightSample.v4Metadata, serviceRoot: root)
        defer { store.close() }
        #expect { try store.checkServiceModel(cancellation: nil) } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .network && error.message.contains("$metadata")
        }
    }
}
