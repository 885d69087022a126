/// One item of a `$batch` answer, in the order the service wrote it.
enum BatchResponseItem {
    /// The answer to a request outside a change set, or the one error answer of a failed change set.
    case single(contentID: String?, HTTPResponse)
    /// A change set the service applied: the answers to its requests.
    case changeSet([(contentID: String?, response: HTTPResponse)])
}

/// Reads a multipart `$batch` answer (OData V4 Protocol §11.7.4; V2 and SAP Gateway use the same
/// format): top-level parts are `application/http` answers or nested `multipart/mixed` change
/// sets, each answer a status line, headers, an empty line and a body.
enum BatchResponseParser {
    static func parse(_ response: HTTPResponse) throws(ODataError) -> [BatchResponseItem] {
        guard let contentType = response.header("Content-Type"), let boundary = MultipartBody.boundary(ofContentType: contentType) else {
            throw ODataError(.http, "the $batch answer (\(response.status)) is not multipart/mixed with a boundary: "
                             + "Content-Type '\(response.header("Content-Type") ?? "")'")
        }
        return try parse(response.body, boundary: boundary)
    }

    static func parse(_ body: [UInt8], boundary: String) throws(ODataError) -> [BatchResponseItem] {
        var items: [BatchResponseItem] = []
        for (index, part) in try MultipartBody.parts(of: body, boundary: boundary).enumerated() {
            if let nested = part.header("Content-Type").flatMap(MultipartBody.boundary(ofContentType:)) {
                var answers: [(contentID: String?, response: HTTPResponse)] = []
                for inner in try MultipartBody.parts(of: part.body, boundary: nested) {
                    answers.append((inner.header("Content-ID"), try httpResponse(in: inner, item: index + 1)))
                }
                items.append(.changeSet(answers))
            } else {
                items.append(.single(contentID: part.header("Content-ID"), try httpResponse(in: part, item: index + 1)))
            }
        }
        return items
    }

    /// The HTTP answer an `application/http` part carries.
    private static func httpResponse(in part: MultipartPart, item: Int) throws(ODataError) -> HTTPResponse {
        if let type = part.header("Content-Type"), !asciiLowercased(type).hasPrefix("application/http") {
            throw ODataError(.syntax, "part \(item) of the $batch answer is '\(type)', not application/http")
        }
        var bytes = part.body[...]
        while let first = bytes.first, first == 13 || first == 10 { bytes = bytes.dropFirst() }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            throw ODataError(.syntax, "part \(item) of the $batch answer has no status line: '\(MultipartBody.brief(bytes))'")
        }
        let status = try statusCode(bytes[bytes.startIndex..<newline], item: item)
        let (headers, body) = try MultipartBody.splitHeaders(Array(bytes[(newline + 1)...]))
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// The code of `HTTP/1.1 201 Created`.
    private static func statusCode(_ line: ArraySlice<UInt8>, item: Int) throws(ODataError) -> Int {
        let words = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard words.count >= 2, words[0].starts(with: Array("HTTP/".utf8)), words[1].count == 3,
              words[1].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ODataError(.syntax, "part \(item) of the $batch answer has no valid status line: '\(MultipartBody.brief(line))'")
        }
        return words[1].reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}
