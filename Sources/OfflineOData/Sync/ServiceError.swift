/// Turns a service's error answer into an ``ODataError`` with the service's own words.
///
/// V4 services answer `{"error":{"code":"...","message":"..."}}`, V2 (SAP Gateway) services
/// `{"error":{"code":"...","message":{"lang":"en","value":"..."}}}`; anything else (an HTML page,
/// an empty body) is quoted briefly.
enum ServiceError {
    static func from(_ response: HTTPResponse, request: String) -> ODataError {
        let detail = message(in: response.body) ?? brief(response.text)
        let code: ODataError.Code = response.status == 404 ? .notFound : .http
        var error = ODataError(code, "\(request): the service answered \(response.status)\(detail.isEmpty ? "" : ": \(detail)")")
        error.httpStatus = response.status
        return error
    }

    /// The message of an OData error body, V2 or V4, if the body is one.
    static func message(in body: [UInt8]) -> String? {
        guard let document = try? JSONValue.parse(body), let error = document["error"] else { return nil }
        let message = error["message"]?.stringValue ?? error["message"]?["value"]?.stringValue
        let code = error["code"]?.stringValue
        switch (code, message) {
        case let (code?, message?) where !code.isEmpty: return "\(message) (\(code))"
        case let (_, message?): return message
        case let (code?, nil): return code
        default: return nil
        }
    }

    private static func brief(_ text: String) -> String {
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ")
        return trimmed.count > 200 ? String(trimmed.prefix(197)) + "..." : trimmed
    }
}
