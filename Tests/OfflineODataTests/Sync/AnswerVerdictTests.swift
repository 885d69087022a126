import Testing
@_spi(Tool) @testable import OfflineOData

/// What an answer means for the request it answers: only proof of success takes a request out of
/// the queue; refusals are archived by kind; "not now" and lost answers keep it.
@Suite struct AnswerVerdictTests {
    /// The key of the flight sample's agencies (`agencynum`).
    static let key: [StoredColumn] = {
        let schema = try? StoreSchema(model: MetadataReader.read(Array(LocalWriterTests.metadata.utf8)))
        return schema?.table(forEntitySet: "TravelagencyCollection")?.keyColumns ?? []
    }()
    static let patch = QueuedRequest(method: .patch, url: "TravelagencyCollection('1')", body: #"{"name":"N"}"#)
    static let keyless = QueuedRequest(method: .post, url: "TravelagencyCollection", body: #"{"name":"N"}"#)
    static let keyed = QueuedRequest(method: .post, url: "TravelagencyCollection", body: #"{"agencynum":"7","name":"N"}"#)

    static func answer(_ status: Int, _ body: String = "", _ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers.map { HTTPHeader($0.0, $0.1) }, body: Array(body.utf8))
    }

    @Test func twoHundredsWithProofAreApplied() {
        #expect(Self.key.map(\.name) == ["agencynum"])
        #expect(AnswerVerdict(Self.answer(204), to: Self.patch, keyColumns: Self.key) == .applied)
        #expect(AnswerVerdict(Self.answer(200, #"{"name":"N"}"#, [("Content-Type", "application/json")]), to: Self.patch,
                              keyColumns: Self.key) == .applied)
        #expect(AnswerVerdict(Self.answer(201, #"{"agencynum":"9"}"#), to: Self.keyless, keyColumns: Self.key) == .applied)
        #expect(AnswerVerdict(Self.answer(201, #"{"d":{"agencynum":"9"}}"#), to: Self.keyless, keyColumns: Self.key) == .applied)
        #expect(AnswerVerdict(Self.answer(201, "", [("Location", "http://h/TravelagencyCollection('9')")]), to: Self.keyless,
                              keyColumns: Self.key) == .applied)
        #expect(AnswerVerdict(Self.answer(204), to: Self.keyed, keyColumns: Self.key) == .applied)
    }

    @Test(arguments: ["http://h/login", "http://h/FlightCollection('9')", "http://h/TravelagencyCollection",
                      "http://h/TravelagencyCollection()"])
    func aCreatesLocationThatNamesNoEntityOfItsSetIsNoProof(location: String) {
        guard case .noProof = AnswerVerdict(Self.answer(201, "", [("Location", location)]), to: Self.keyless,
                                            keyColumns: Self.key) else {
            Issue.record("a 201 with Location '\(location)' was taken as proof of the create")
            return
        }
    }

    @Test(arguments: [
        (answer(200, "<html>log in</html>", [("Content-Type", "text/html; charset=utf-8")]), "text/html"),
        (answer(200, #"{"name":"#, [("Content-Type", "application/json")]), "not complete JSON"),
        (answer(200, "[1]", [("Content-Type", "application/json")]), "not a JSON object"),
    ])
    func aTwoHundredThatIsNotTheEntityIsNoProof(response: HTTPResponse, reason: String) {
        guard case .noProof(let message) = AnswerVerdict(response, to: Self.patch, keyColumns: Self.key) else {
            Issue.record("a \(response.status) with that body was taken as proof")
            return
        }
        #expect(message.contains(reason))
        #expect(message.contains("PATCH TravelagencyCollection('1')"))
    }

    @Test func aCreateWhoseKeyTheServiceAssignsNeedsTheEntityOrALocation() {
        #expect(AnswerVerdict(Self.answer(201), to: Self.keyless, keyColumns: Self.key)
                == .noProof("the answer 201 to POST TravelagencyCollection names no entity: no body and no Location header"))
        guard case .noProof(let message) = AnswerVerdict(Self.answer(201, #"{"name":"N"}"#), to: Self.keyless, keyColumns: Self.key) else {
            Issue.record("an entity without its key was taken as proof")
            return
        }
        #expect(message.contains("does not hold the created entity's key"))
    }

    @Test func refusalsAreArchivedByKindAndTheRestStopsTheUpload() {
        func verdict(_ status: Int, _ headers: [(String, String)] = []) -> AnswerVerdict {
            AnswerVerdict(Self.answer(status, "", headers), to: Self.patch, keyColumns: Self.key)
        }
        for status in [400, 403, 404, 405, 422] { #expect(verdict(status) == .refused(.refused)) }
        for status in [409, 412] { #expect(verdict(status) == .refused(.conflict)) }
        #expect(verdict(428) == .preconditionRequired)
        for status in [401, 407, 408, 425, 500, 501, 503] { #expect(verdict(status) == .notNow(retryAfter: nil)) }
        #expect(verdict(429, [("Retry-After", " 5 ")]) == .notNow(retryAfter: 5))
        #expect(verdict(429, [("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")]) == .notNow(retryAfter: nil))
        for status in [502, 504] { #expect(verdict(status) == .gatewayFailure) }
        // The CSRF token refused after a new one was fetched: the session's fault, not the request's.
        #expect(verdict(403, [("X-CSRF-Token", "Required")]) == .notNow(retryAfter: nil))
    }

    /// A key of the wrong type says no more than no key: the create would be recorded without the
    /// entity it made.
    @Test func aCreatedKeyNotOfItsTypeIsNoProof() {
        guard case .noProof(let message) = AnswerVerdict(Self.answer(201, #"{"agencynum":12}"#), to: Self.keyless,
                                                         keyColumns: Self.key) else {
            Issue.record("a key of the wrong type was taken as proof")
            return
        }
        #expect(message.contains("does not hold the created entity's key"))
    }

    /// Compared with what a change was made on, a value the service sends that cannot be read
    /// disagrees; one it does not send is not compared.
    @Test func anUnreadableServedValueAgreesWithNothing() throws {
        let schema = try StoreSchema(model: MetadataReader.read(Array(LocalWriterTests.metadata.utf8)))
        let table = try #require(schema.table(forEntitySet: "TravelagencyCollection"))
        let expected: [String: SQLValue] = ["agencynum": .text("1"), "name": .text("A")]
        let readable = try #require(ServedEntity(Self.answer(200, #"{"agencynum":"1","name":"A"}"#), table: table, dialect: .v4))
        let unreadable = try #require(ServedEntity(Self.answer(200, #"{"agencynum":"1","name":42}"#), table: table, dialect: .v4))
        let partial = try #require(ServedEntity(Self.answer(200, #"{"agencynum":"1"}"#), table: table, dialect: .v4))
        #expect(readable.agrees(with: expected) && readable.has(expected))
        #expect(!unreadable.agrees(with: expected) && !unreadable.has(expected))
        #expect(partial.agrees(with: expected) && !partial.has(expected))
    }
}
