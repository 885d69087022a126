import Testing
@_spi(Tool) @testable import OfflineOData

/// The `$batch` request body, byte for byte, and how queued requests are grouped into change sets.
@Suite struct BatchRequestBuilderTests {
    static let post = QueuedRequest(id: 1, method: .post, url: "TravelagencyCollection", body: #"{"agencynum":"N1"}"#,
                                    entitySet: "TravelagencyCollection", entityID: 7, contentID: "ood7")
    static let patchNew = QueuedRequest(id: 2, method: .patch, url: "TravelagencyCollection('N1')", body: #"{"city":"Rome"}"#,
                                        entitySet: "TravelagencyCollection", entityID: 7)
    static let delete = QueuedRequest(id: 3, method: .delete, url: "TravelagencyCollection('00000002')",
                                      entitySet: "TravelagencyCollection", entityID: 2, etag: #"W/"1""#)

    @Test func writesChangeSetsWithContentIDsReferencesAndIfMatch() throws {
        let plan = ChangeSetPlan.plan([Self.post, Self.patchNew, Self.delete], groupByTransaction: false, contentIDReferences: true)
        let built = try BatchRequestBuilder(makeBoundary: { kind, _ in "\(kind)_b" }).build(plan)
        #expect(built.contentType == "multipart/mixed; boundary=batch_b")
        let expected = """
            --batch_b
            Content-Type: multipart/mixed; boundary=changeset_b

            --changeset_b
            Content-Type: application/http
            Content-Transfer-Encoding: binary
            Content-ID: 1

            POST TravelagencyCollection HTTP/1.1
            Accept: application/json
            Content-Type: application/json

            {"agencynum":"N1"}
            --changeset_b
            Content-Type: application/http
            Content-Transfer-Encoding: binary
            Content-ID: 2

            PATCH $1 HTTP/1.1
            Accept: application/json
            Content-Type: application/json
            If-Match: *

            {"city":"Rome"}
            --changeset_b--
            --batch_b
            Content-Type: multipart/mixed; boundary=changeset_b

            --changeset_b
            Content-Type: application/http
            Content-Transfer-Encoding: binary
            Content-ID: 3

            DELETE TravelagencyCollection('00000002') HTTP/1.1
            Accept: application/json
            If-Match: W/"1"


            --changeset_b--
            --batch_b--

            """.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        #expect(String(decoding: built.body, as: UTF8.self) == expected)
    }

    @Test func withoutReferencesTheCreatedEntityIsAddressedByItsKeyInThePostsChangeSet() {
        let plan = ChangeSetPlan.plan([Self.post, Self.delete, Self.patchNew], groupByTransaction: false, contentIDReferences: false)
        #expect(plan.map { $0.map(\.contentID) } == [["1", "3"], ["2"]])
        #expect(plan[0][1].url == "TravelagencyCollection('N1')" && plan[0][1].ifMatch == "*")
    }

    @Test func groupsByTransactionOnlyWhenAsked() {
        var a = QueuedRequest(id: 1, method: .delete, url: "A('1')", entitySet: "A", entityID: 1)
        var b = QueuedRequest(id: 2, method: .delete, url: "A('2')", entitySet: "A", entityID: 2)
        let c = QueuedRequest(id: 3, method: .delete, url: "A('3')", entitySet: "A", entityID: 3)
        a.transactionID = "t"
        b.transactionID = "t"
        #expect(ChangeSetPlan.plan([a, c, b], groupByTransaction: false, contentIDReferences: true).count == 3)
        let grouped = ChangeSetPlan.plan([a, c, b], groupByTransaction: true, contentIDReferences: true)
        #expect(grouped.map { $0.map(\.request.id) } == [[1, 2], [3]])
    }

    @Test func aBoundaryInABodyIsReplaced() throws {
        let request = QueuedRequest(id: 1, method: .post, url: "A", body: #"{"name":"batch_b changeset_b"}"#)
        let plan = ChangeSetPlan.plan([request], groupByTransaction: false, contentIDReferences: true)
        let built = try BatchRequestBuilder(makeBoundary: { kind, _ in "\(kind)_b" }).build(plan)
        #expect(built.contentType != "multipart/mixed; boundary=batch_b")
        let text = String(decoding: built.body, as: UTF8.self)
        #expect(!text.contains("boundary=changeset_b\r\n") && !text.hasPrefix("--batch_b\r\n"))
    }
}

/// Reading `$batch` answers: change sets, refusals, line ends, and input that is not an answer.
@Suite struct BatchResponseParserTests {
    static func response(_ body: String, contentType: String = "multipart/mixed; boundary=\"b-1\"") -> HTTPResponse {
        HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", contentType)], body: Array(body.utf8))
    }

    static let answer = """
        preamble to ignore\r
        --b-1\r
        Content-Type: multipart/mixed; boundary=cs\r
        \r
        --cs\r
        Content-Type: application/http\r
        Content-Transfer-Encoding: binary\r
        Content-ID: 1\r
        \r
        HTTP/1.1 201 Created\r
        Content-Type: application/json\r
        ETag: W/"7"\r
        \r
        {"agencynum":"N1"}\r
        --cs\r
        Content-Type: application/http\r
        Content-ID: 2\r
        \r
        HTTP/1.1 204 No Content\r
        \r
        \r
        --cs--\r
        --b-1\r
        Content-Type: application/http\r
        \r
        HTTP/1.1 412 Precondition Failed\r
        Content-Type: application/json\r
        \r
        {"error":{"code":"412","message":"stale"}}\r
        --b-1--\r
        epilogue
        """

    @Test func readsChangeSetsAndRefusals() throws {
        let items = try BatchResponseParser.parse(Self.response(Self.answer))
        #expect(items.count == 2)
        guard case .changeSet(let answers)? = items.first, case .single(_, let refusal)? = items.last else {
            Issue.record("unexpected items \(items)")
            return
        }
        #expect(answers.map(\.contentID) == ["1", "2"])
        #expect(answers.map(\.response.status) == [201, 204])
        #expect(answers[0].response.header("ETag") == #"W/"7""#)
        #expect(answers[0].response.text == #"{"agencynum":"N1"}"#)
        #expect(answers[1].response.body.isEmpty)
        #expect(refusal.status == 412 && ServiceError.message(in: refusal.body) == "stale (412)")
    }

    @Test func acceptsLineFeedsAlone() throws {
        let items = try BatchResponseParser.parse(Self.response(Self.answer.replacingCRLF()))
        guard case .changeSet(let answers)? = items.first, case .single(_, let refusal)? = items.last else {
            Issue.record("unexpected items \(items)")
            return
        }
        #expect(answers[0].response.text == #"{"agencynum":"N1"}"#)
        #expect(refusal.status == 412)
    }

    @Test(arguments: [
        ("", "no delimiter"),
        ("--b-1\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", "closing delimiter"),
        ("--b-1\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 2x0 OK\r\n\r\n--b-1--", "status line"),
        ("--b-1\r\nContent-Type: application/http\r\n\r\nHTTP/1.1\r\n\r\n--b-1--", "status line"),
        ("--b-1\r\nContent-Type: application/http\r\n\r\n--b-1--", "no status line"),
        ("--b-1\r\nnot a header\r\n\r\nHTTP/1.1 200 OK\r\n--b-1--", "has no ':'"),
        ("--b-1\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b-1--", "not application/http"),
        ("--b-1 junk\r\n--b-1--", "not followed by a line break"),
        ("--b-1\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n--cs\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n--b-1--",
         "closing delimiter '--cs--'"),
        ("\u{0}\u{1}--b-1--", "no delimiter"),
    ])
    func garbageIsASyntaxErrorNamingTheFault(body: String, fault: String) {
        #expect {
            try BatchResponseParser.parse(Self.response(body))
        } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == .syntax && error.message.contains(fault)
        }
    }

    @Test func anAnswerThatIsNotMultipartIsAnHTTPError() {
        #expect {
            try BatchResponseParser.parse(Self.response("{}", contentType: "application/json"))
        } throws: { error in
            (error as? ODataError)?.code == .http
        }
    }

    @Test func readsBoundaryParameters() {
        #expect(MultipartBody.boundary(ofContentType: #"multipart/mixed; charset=utf-8; Boundary="a b""#) == "a b")
        #expect(MultipartBody.boundary(ofContentType: "Multipart/Mixed;boundary=x") == "x")
        #expect(MultipartBody.boundary(ofContentType: "application/json; boundary=x") == nil)
        #expect(MultipartBody.boundary(ofContentType: "multipart/mixed; boundary=") == nil)
    }
}

extension String {
    func replacingCRLF() -> String {
        String(decoding: Array(utf8).filter { $0 != 13 }, as: UTF8.self)
    }
}

/// The batch upload against a scripted service: one `$batch` per chunk, answers recorded per request.
@Suite struct BatchUploaderTests {
    typealias Fixture = UploaderTests.Fixture

    static func uploader(_ f: Fixture, batchSize: Int = 100, groupByTransaction: Bool = false) throws -> BatchUploader {
        BatchUploader(transport: try HTTPTransport(), serviceRoot: f.server.baseURL + "/svc/", dialect: .v4,
                      file: f.store.file, schema: f.store.schema, batchSize: batchSize, groupByTransaction: groupByTransaction,
                      compactsQueue: false)
    }

    /// A `$batch` answer: one part per item, each a change set (`[status, ...]`) or, for a refusal,
    /// one bare answer; `lineEnd` "\n" writes LF-only line ends as some services do.
    static func answer(_ items: [[(Int, String, String)]], refused: [Int: (Int, String)] = [:], lineEnd: String = "\r\n") -> TestHTTPBehaviour {
        var lines: [String] = []
        var contentID = 0
        for (index, changeSet) in items.enumerated() {
            lines.append("--B")
            if let (status, body) = refused[index] {
                contentID += changeSet.count
                lines += ["Content-Type: application/http", "", "HTTP/1.1 \(status) Refused", "Content-Type: application/json", "", body]
                continue
            }
            lines += ["Content-Type: multipart/mixed; boundary=C\(index)", ""]
            for (status, etag, body) in changeSet {
                contentID += 1
                lines += ["--C\(index)", "Content-Type: application/http", "Content-ID: \(contentID)", "", "HTTP/1.1 \(status) Done"]
                if !etag.isEmpty { lines.append("ETag: \(etag)") }
                lines += ["", body]
            }
            lines.append("--C\(index)--")
        }
        lines.append("--B--")
        return .text(202, lines.joined(separator: lineEnd), headers: [("Content-Type", "multipart/mixed; boundary=B")])
    }

    static func csrf(_ request: ReceivedRequest, _ then: () -> TestHTTPBehaviour) -> TestHTTPBehaviour {
        if request.header("X-CSRF-Token") == "Fetch" { return .text(200, "{}", headers: [("X-CSRF-Token", "t1")]) }
        guard request.header("X-CSRF-Token") == "t1" else { return .text(403, "", headers: [("X-CSRF-Token", "Required")]) }
        return then()
    }

    static func queueThree(_ f: Fixture) throws {
        try f.seed("00000001")
        try f.seed("00000002")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8))
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array(#"{"city":"Rome"}"#.utf8))
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000002')")
    }

    @Test func sendsOneBatchWithTheTokenAndRecordsEveryAnswer() throws {
        let f = try Fixture { (request: ReceivedRequest) -> TestHTTPBehaviour in
            Self.csrf(request) { Self.answer([[(201, #"W/"7""#, #"{"agencynum":"N1"}"#)], [(204, #"W/"2""#, "")], [(204, "", "")]]) }
        }
        try Self.queueThree(f)
        var reports: [UploadProgress] = []
        let outcome = try Self.uploader(f).upload { reports.append($0); return true }
        #expect(outcome.withoutBytes == UploadOutcome(sent: 3, archived: 0))
        #expect(reports.map { [$0.sent, $0.archived, $0.total] } == [[3, 0, 3]])
        let requests = f.server.requests
        // The bytes on the wire: the one $batch body sent; the token fetch's "{}" and the multipart answer received.
        #expect(reports.first?.bytesSent == requests[1].body.count && outcome.bytesSent == requests[1].body.count)
        #expect(outcome.bytesReceived > 2 && reports.first?.bytesReceived == outcome.bytesReceived)
        #expect(requests.map(\.method) == ["GET", "POST"])
        #expect(requests[1].target == "/svc/$batch" && requests[1].header("X-CSRF-Token") == "t1")
        #expect(requests[1].header("Content-Type")?.hasPrefix("multipart/mixed; boundary=batch_") == true)
        let body = String(decoding: requests[1].body, as: UTF8.self)
        #expect(body.contains("PATCH TravelagencyCollection('00000001') HTTP/1.1\r\n") && body.contains("If-Match: W/\"1\"\r\n"))
        #expect(try f.store.file.queuedRequests().isEmpty)
        #expect(try f.column("N1", "_ood_etag") == #"W/"7""# && f.column("N1", "_ood_change") == nil)
        #expect(try f.column("00000001", "_ood_etag") == #"W/"2""#)
        #expect(try !f.exists("00000002"))
    }

    @Test func aRefusedChangeSetIsArchivedAndTheOthersAreRecorded() throws {
        let f = try Fixture { (request: ReceivedRequest) -> TestHTTPBehaviour in
            Self.csrf(request) {
                Self.answer([[(201, "", "{}")], [(0, "", "")], [(204, "", "")]],
                       refused: [1: (412, #"{"error":{"code":"412","message":"stale"}}"#)], lineEnd: "\n")
            }
        }
        try Self.queueThree(f)
        #expect(try Self.uploader(f).upload().withoutBytes == UploadOutcome(sent: 2, archived: 1))
        let archive = try f.store.file.errorArchive()
        #expect(archive.count == 1 && archive.first?.httpStatus == 412 && archive.first?.request.method == .patch)
        // The service's code is the status again: said once, in "answered 412" (issue 39).
        #expect(archive.first?.message.contains("answered 412: stale") == true)
        #expect(archive.first?.message.contains("(412)") == false)
        #expect(try f.column("00000001", "_ood_error") == "1")
        #expect(try f.store.file.queuedRequests().isEmpty && !f.exists("00000002"))
    }

    /// A transaction of two requests, then a DELETE: in batches of 2 the chunk ends with the
    /// transaction; in batches of 1 the transaction would be cut, and is sent whole instead.
    @Test(arguments: [2, 1])
    func chunksOfBatchSizeAndTransactionsInOneChangeSetSentWhole(batchSize: Int) throws {
        let f = try Fixture { (request: ReceivedRequest) -> TestHTTPBehaviour in
            Self.csrf(request) {
                // The first batch holds the two requests of the transaction; the second the DELETE.
                String(decoding: request.body, as: UTF8.self).contains("DELETE ")
                    ? Self.answer([[(204, "", "")]])
                    : Self.answer([[(201, "", "{}"), (204, "", "")]])
            }
        }
        try f.seed("00000001")
        try f.seed("00000002")
        _ = try f.store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"N1","name":"New"}"#.utf8),
                              transactionID: "t")
        _ = try f.store.write(method: "PATCH", url: "TravelagencyCollection('00000001')", body: Array("{}".utf8), transactionID: "t")
        _ = try f.store.write(method: "DELETE", url: "TravelagencyCollection('00000002')")
        #expect(try Self.uploader(f, batchSize: batchSize, groupByTransaction: true).upload().withoutBytes == UploadOutcome(sent: 3, archived: 0))
        let batches = f.server.requests.filter { $0.target == "/svc/$batch" }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(batches.count == 2)
        #expect(batches.first.map { $0.contains("POST TravelagencyCollection ") && $0.contains("PATCH TravelagencyCollection('00000001')") } == true)
        #expect(try f.store.file.queuedRequests().isEmpty)
    }

    @Test(arguments: [
        (TestHTTPBehaviour.text(503, "down"), ODataError.Code.http, "503"),
        (.text(400, #"{"error":{"code":"x","message":"bad batch"}}"#), .http, "bad batch"),
        (.text(200, "garbage", headers: [("Content-Type", "multipart/mixed; boundary=B")]), .syntax, "cannot be read"),
        (.text(200, "{}", headers: [("Content-Type", "application/json")]), .http, "not multipart"),
        (.close, .network, "stay queued"),
    ])
    func aFailedBatchKeepsEveryRequestQueued(behaviour: TestHTTPBehaviour, code: ODataError.Code, text: String) throws {
        let f = try Fixture { (request: ReceivedRequest) -> TestHTTPBehaviour in Self.csrf(request) { behaviour } }
        try Self.queueThree(f)
        #expect {
            try Self.uploader(f).upload()
        } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.code == code && error.message.contains(text) && error.message.contains("3 requests stay queued")
        }
        #expect(try f.store.file.queuedRequests().count == 3)
    }

    @Test func aServerErrorForOneChangeSetStopsAfterRecordingTheOthers() throws {
        let f = try Fixture { (request: ReceivedRequest) -> TestHTTPBehaviour in
            Self.csrf(request) { Self.answer([[(201, "", "{}")], [(0, "", "")], [(204, "", "")]], refused: [1: (500, "{}")]) }
        }
        try Self.queueThree(f)
        #expect {
            try Self.uploader(f).upload()
        } throws: { error in
            (error as? ODataError)?.code == .http && (error as? ODataError)?.message.contains("1 requests stay queued") == true
        }
        #expect(try f.store.file.queuedRequests().map(\.method.rawValue) == ["PATCH"])
    }
}
