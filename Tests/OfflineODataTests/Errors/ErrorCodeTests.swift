import Testing
@_spi(Tool) import OfflineOData

/// ``ODataError/Code`` is an open set: codes of a later version are values too, and `switch`
/// works with a `default`.
@Suite struct ErrorCodeTests {
    /// What an app's code looks like: known codes by name, the rest by `default`.
    private static func advice(_ code: ODataError.Code) -> String {
        switch code {
        case .network, .http: "retry later"
        case .aborted: "stopped"
        default: "show it"
        }
    }

    @Test func switchMatchesKnownCodesAndDefaultsTheRest() {
        #expect(Self.advice(.network) == "retry later")
        #expect(Self.advice(.aborted) == "stopped")
        #expect(Self.advice(.busy) == "show it")
        #expect(Self.advice(ODataError.Code(rawValue: 99)) == "show it")
        let error = ODataError(.http, "refused")
        if case .http = error.code {} else { Issue.record("`if case` did not match the code") }
    }

    @Test func aCodeFromALaterVersionKeepsItsValueAndIsUnknown() {
        let later = ODataError.Code(rawValue: 99)
        #expect(later.rawValue == 99)
        #expect(!later.isKnown)
        #expect(later.cName == "OOD_UNKNOWN")
        #expect(later != .busy)
        #expect(ODataError.Code.busy.isKnown)
        #expect(ODataError.Code(rawValue: 15) == .busy)
    }

    @Test func theKnownCodesAreTheCOnesInOrder() {
        #expect(ODataError.Code.allCases.map(\.rawValue) == Array(1...17))
        #expect(ODataError.Code.allCases.map(\.cName) == [
            "OOD_ERROR", "OOD_MISUSE", "OOD_CANTOPEN", "OOD_NOTASTORE", "OOD_STORAGE", "OOD_METADATA", "OOD_SYNTAX",
            "OOD_SEMANTIC", "OOD_UNSUPPORTED", "OOD_NETWORK", "OOD_HTTP", "OOD_NOTFOUND", "OOD_CONSTRAINT",
            "OOD_ABORTED", "OOD_BUSY", "OOD_KEY", "OOD_OTHER_USER",
        ])
        #expect("\(ODataError.Code.notAStore)" == "OOD_NOTASTORE")
    }
}
