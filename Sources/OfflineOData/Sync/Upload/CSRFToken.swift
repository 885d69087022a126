/// SAP Gateway's cross-site request forgery protection, as a client meets it.
///
/// A modifying request needs the header `X-CSRF-Token` with a token the service handed out in
/// answer to a request carrying `X-CSRF-Token: Fetch`, within the same session (its cookies, which
/// the transport keeps). An expired token is answered `403` with `X-CSRF-Token: Required`; the
/// client fetches a new one and tries again, once. Services without the protection answer the
/// fetch without a token, and nothing is sent.
struct CSRFToken {
    private(set) var value: String?
    private var fetched = false

    static let header = "X-CSRF-Token"

    /// Fetches a token unless one was fetched already in this upload. The uploads call it before
    /// marking a request sent, so a failed fetch stops them with nothing in doubt; `stopped` is
    /// the note a failure's message ends with.
    mutating func ensure(_ transport: HTTPTransport, serviceRoot: String, cancellation: HTTPCancellation?,
                         stopped: String = "") throws(ODataError) {
        guard !fetched else { return }
        do {
            try refresh(transport, serviceRoot: serviceRoot, cancellation: cancellation)
        } catch {
            var error = error
            error.message += stopped
            throw error
        }
    }

    /// Fetches a new token (after the service said the old one is no longer valid).
    ///
    /// - Throws: when the fetch is not answered 2xx (a login page's 401, a 5xx, no network): the
    ///   upload cannot send anything the service would take, so it stops before sending.
    mutating func refresh(_ transport: HTTPTransport, serviceRoot: String, cancellation: HTTPCancellation?) throws(ODataError) {
        let response: HTTPResponse
        do {
            response = try transport.send(UploadRequests.csrfFetch(serviceRoot: serviceRoot), cancellation: cancellation)
        } catch {
            var error = error
            error.message = "fetching a CSRF token failed: " + error.message
            throw error
        }
        guard (200..<300).contains(response.status) else {
            var error = transport.serviceError(response, request: "GET (X-CSRF-Token: Fetch)")
            error.message = "fetching a CSRF token failed: " + error.message + " (" + AnswerVerdict.advice(for: response) + ")"
            throw error
        }
        fetched = true
        let token = response.header(Self.header)
        value = (token?.isEmpty == false && asciiLowercased(token ?? "") != "required") ? token : nil
    }

    /// Sends through `send` with the current token, fetching one first if this upload has none,
    /// and once more with a new token when the service says the old one is no longer valid.
    mutating func sending(_ transport: HTTPTransport, serviceRoot: String, cancellation: HTTPCancellation?,
                          _ send: (String?) throws(ODataError) -> HTTPResponse) throws(ODataError) -> HTTPResponse {
        try ensure(transport, serviceRoot: serviceRoot, cancellation: cancellation)
        let response = try send(value)
        guard Self.isRequired(by: response) else { return response }
        try refresh(transport, serviceRoot: serviceRoot, cancellation: cancellation)
        return try send(value)
    }

    /// Whether `response` says the token was missing or expired.
    static func isRequired(by response: HTTPResponse) -> Bool {
        response.status == 403 && asciiLowercased(response.header(header) ?? "") == "required"
    }
}
