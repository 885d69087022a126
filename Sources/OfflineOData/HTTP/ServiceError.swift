/// Turns a service's error answer into an ``ODataError`` with the service's own words.
///
/// V4 services answer `{"error":{"code":"...","message":"..."}}`, V2 (SAP Gateway) services
/// `{"error":{"code":"...","message":{"lang":"en","value":"..."}}}`; anything else (an HTML page,
/// an empty body) is quoted briefly.
enum ServiceError {
    /// The most of a service's message an error (and so the error archive) keeps, unless
    /// ``HTTPOptions/maximumMessageLength`` says otherwise.
    static let defaultLongestMessage = 1_000

    /// The error for a service's error answer; `longestMessage` is the transport's
    /// ``HTTPOptions/maximumMessageLength``.
    static func from(_ response: HTTPResponse, request: String, longestMessage: Int) -> ODataError {
        let detail = shown(message(in: response.body, status: response.status) ?? brief(response.text), longestMessage: longestMessage)
        let code: ODataError.Code = response.status == 404 ? .notFound : .http
        var error = ODataError(code, "\(request): the service answered \(response.status)\(detail.isEmpty ? "" : ": \(detail)")")
        error.httpStatus = response.status
        error.httpHeaders = response.headers
        return error
    }

    /// The message of an OData error body, V2 or V4, if the body is one, with the service's error
    /// code, unless that code is only the HTTP `status` again (the message says it already).
    static func message(in body: [UInt8], status: Int? = nil) -> String? {
        guard let document = try? JSONValue.parse(body), let error = document["error"] else { return nil }
        let message = error["message"]?.stringValue ?? error["message"]?["value"]?.stringValue
        let code = error["code"]?.stringValue
        switch (code, message) {
        case let (code?, message?) where !code.isEmpty && code != status.map(String.init): return "\(message) (\(code))"
        case let (_, message?): return message
        case let (code?, nil): return code
        default: return nil
        }
    }

    /// The service's words as they may be shown and kept: control characters (a terminal's escape
    /// sequences, line breaks) become spaces, and at most `longestMessage` characters are kept.
    static func shown(_ text: String, longestMessage: Int) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == longestMessage {
                kept.append(contentsOf: "...".unicodeScalars)
                break
            }
            let control = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            kept.append(control ? " " : scalar)
            count += 1
        }
        return String(kept)
    }

    private static func brief(_ text: String) -> String {
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ")
        return trimmed.count > 200 ? String(trimmed.prefix(197)) + "..." : trimmed
    }
}

extension HTTPTransport {
    /// The error for the service's error answer `response` to `request` (a label such as
    /// `GET Orders`), its message held to this transport's ``HTTPOptions/maximumMessageLength``.
    func serviceError(_ response: HTTPResponse, request: String) -> ODataError {
        ServiceError.from(response, request: request, longestMessage: currentOptions.maximumMessageLength)
    }
}
