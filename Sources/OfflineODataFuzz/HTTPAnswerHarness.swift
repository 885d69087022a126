@_spi(Tool) @testable import OfflineOData

/// What the engine makes of a service's answer once the transport has it: the input is an HTTP
/// answer as text (a status line, header lines, an empty line, the body) and goes through the
/// upload's verdict for a create with and without its key and for an update, the service's error
/// message, the `$batch` answer parser, the entity read back for reconciliation and the ETag.
/// Errors are fine; traps are not.
@Sendable func fuzzHTTPAnswer(_ bytes: UnsafeRawBufferPointer) {
    let response = fuzzResponse(Array(bytes))
    for request in fuzzAnswerRequests {
        var document: JSONValue?
        _ = AnswerVerdict(response, to: request, keyColumns: fuzzAnswerTable?.keyColumns ?? [], dialect: .v4, document: &document)
        _ = UploadRecorder.etag(of: response, answer: document)
    }
    _ = ServiceError.from(response, request: "PATCH Orders(1)", longestMessage: ServiceError.defaultLongestMessage)
    _ = AnswerVerdict.advice(for: response)
    if let items = try? BatchResponseParser.parse(response) {
        for case .changeSet(let answers) in items {
            for answer in answers { _ = ServiceError.from(answer.response, request: "$batch part", longestMessage: ServiceError.defaultLongestMessage) }
        }
    }
    if let table = fuzzAnswerTable, let entity = ServedEntity(response, table: table, dialect: .v4) {
        for column in table.columns { _ = entity.value(of: column) }
        _ = entity.has(["ID": .integer(1)])
    }
}

/// `HTTP/1.1 201 Created\r\nName: value\r\n\r\nbody`, leniently: the status is the first number
/// of the first line (500 without one), a header line is split at its first colon.
func fuzzResponse(_ bytes: [UInt8]) -> HTTPResponse {
    var head = bytes[...]
    var body: ArraySlice<UInt8> = []
    for index in bytes.indices where bytes[index] == 10 && index + 1 < bytes.count {
        if bytes[index + 1] == 10 || (bytes[index + 1] == 13 && index + 2 < bytes.count && bytes[index + 2] == 10) {
            head = bytes[..<index]
            body = bytes[(bytes[index + 1] == 10 ? index + 2 : index + 3)...]
            break
        }
    }
    let lines = head.split(separator: 10).map { String(decoding: $0.filter { $0 != 13 }, as: UTF8.self) }
    let digits = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0.prefix(3)) }
    let headers = lines.dropFirst().compactMap { line -> HTTPHeader? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return HTTPHeader(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces())
    }
    return HTTPResponse(status: digits ?? 500, headers: headers, body: Array(body))
}

/// A keyless create, a create with its key, an update and a delete of the URL harness's orders.
let fuzzAnswerRequests = [
    QueuedRequest(method: .post, url: "Orders", body: #"{"Name":"n"}"#, entitySet: "Orders", entityID: 1),
    QueuedRequest(method: .post, url: "Orders", body: #"{"ID":7,"Name":"n"}"#, entitySet: "Orders", entityID: 2),
    QueuedRequest(method: .patch, url: "Orders(1)", body: #"{"Name":"n"}"#, entitySet: "Orders", entityID: 1, etag: "W/\"1\""),
    QueuedRequest(method: .delete, url: "Orders(1)", entitySet: "Orders", entityID: 1),
]

let fuzzAnswerTable: EntitySetTable? = fuzzV4Model.flatMap { try? StoreSchema(model: $0) }?.table(forEntitySet: "Orders")
