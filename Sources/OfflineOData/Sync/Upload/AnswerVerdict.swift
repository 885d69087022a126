/// What the service's answer to one uploaded request means for that request, the same for a
/// request sent alone and for a part of a `$batch` answer.
///
/// A request leaves the queue only on proof that the service applied it: a 2xx whose body is what
/// the request expects. A refusal the request itself caused goes to the error archive; an answer
/// that says "not now" (authentication, throttling, the service down) stops the upload with the
/// request queued as it was; an answer that proves nothing leaves it in doubt.
enum AnswerVerdict: Equatable {
    /// Applied: the request leaves the queue and the entity takes the answer.
    case applied
    /// A 2xx that is not proof (an HTML login page answered 200, a cut entity): the service may
    /// or may not have applied the request. It stays in doubt and the upload stops.
    case noProof(String)
    /// Refused by the service because of the request itself: archived as `kind`.
    case refused(ArchiveKind)
    /// 428: the service wants `If-Match` and the store had no ETag (see ``ETagRecovery``).
    case preconditionRequired
    /// Not applied, and not the request's fault (401, 407, 408, 425, 429, 500, 503, ...): the
    /// upload stops and the request stays queued, to be sent as it is. `retryAfter` in seconds.
    case notNow(retryAfter: Int?)
    /// A gateway's answer (502, 504): the service behind it may have applied the request.
    case gatewayFailure

    init(_ response: HTTPResponse, to request: QueuedRequest, keyColumns: [StoredColumn], dialect: Dialect = .v4) {
        var document: JSONValue?
        self.init(response, to: request, keyColumns: keyColumns, dialect: dialect, document: &document)
    }

    /// `document` receives the answer's body as parsed for the check, so that recording an
    /// applied request does not parse it again. `locationKey` reads the key a create's `Location`
    /// names as the recorder will adopt it (``ServerAssignedKey/key(inLocation:model:)``); without
    /// it, a `Location` of the form `Set(…)` is taken.
    init(_ response: HTTPResponse, to request: QueuedRequest, keyColumns: [StoredColumn], dialect: Dialect,
         document: inout JSONValue?, locationKey: ((String) -> [SQLValue]?)? = nil) {
        if CSRFToken.isRequired(by: response) {
            // The token was refused even after a new one was fetched: not the request's fault.
            self = .notNow(retryAfter: nil)
            return
        }
        switch response.status {
        case 200..<300:
            if let reason = Self.missingProof(response, to: request, keyColumns: keyColumns, dialect: dialect, document: &document,
                                              locationKey: locationKey) {
                self = .noProof(reason)
            } else {
                self = .applied
            }
        case 401, 407, 408, 425, 429:
            self = .notNow(retryAfter: Self.retryAfter(response))
        case 428:
            self = .preconditionRequired
        case 409, 412:
            self = .refused(.conflict)
        case 400..<500:
            self = .refused(.refused)
        case 502, 504:
            self = .gatewayFailure
        default:
            // 5xx, and what is not an HTTP answer status at all (1xx, 3xx not followed).
            self = .notNow(retryAfter: Self.retryAfter(response))
        }
    }

    /// Why a 2xx answer does not prove the request was applied; nil when it does.
    ///
    /// - A body, when there is one, must be a JSON object (the entity, V4 or V2's `{"d":...}`);
    ///   a page in another format (a login page, an error page of a proxy) is no proof.
    /// - A create must say which entity it made: the entity in the body with its key, or a
    ///   `Location` (V4 also `OData-EntityId`) header naming an entity of the set by key; a create whose body gave the key needs
    ///   neither (its answer may be a 204, or an entity without the key).
    static func missingProof(_ response: HTTPResponse, to request: QueuedRequest, keyColumns: [StoredColumn],
                             dialect: Dialect, document parsed: inout JSONValue?,
                             locationKey: ((String) -> [SQLValue]?)? = nil) -> String? {
        // Built only for an answer that is no proof: quoting the URL costs more than the checks.
        func what() -> String { "the answer \(response.status) to \(request.method) \(redactedURL(request.url))" }
        var entity: JSONValue?
        if !response.body.isEmpty {
            let type = asciiLowercased(response.header("Content-Type") ?? "")
            guard type.isEmpty || type.contains("json") else {
                return "\(what()) is '\(type.split(separator: ";").first.map(String.init) ?? type)', not the JSON an OData service "
                    + "answers (a login page or a proxy's page?)"
            }
            guard let document = try? JSONValue.parse(response.body) else {
                return "\(what()) is not complete JSON (cut or malformed)"
            }
            guard document.objectMembers != nil else { return "\(what()) is not a JSON object" }
            parsed = document
            entity = document["d"].flatMap { $0["results"] == nil ? $0 : nil } ?? document
        }
        guard request.method == .post, !keyColumns.isEmpty else { return nil }
        // The key must be one the store can take, or the create is recorded without the entity it made.
        if let entity, ServerAssignedKey.key(in: entity, keyColumns: keyColumns, dialect: dialect) != nil { return nil }
        // A URL that names no entity of the set (another set, no key, a page of a proxy) proves nothing,
        // and the create's entity would keep the key the store gave it.
        // The created entity's set: the queue's record of it, else the URL's (a create through a
        // navigation makes an entity of the navigation's set).
        let entitySet = request.entitySet ?? String(request.url.prefix { $0 != "(" && $0 != "?" && $0 != "/" })
        // One the recorder cannot read a key from would leave the entity its provisional key while
        // the service has it under another (a duplicate at the next download): no proof either.
        let location = response.header("Location") ?? response.header("OData-EntityId")
        if let location, ServerAssignedKey.locationNamesAnEntity(location, of: entitySet),
           locationKey.map({ $0(location) != nil }) ?? true { return nil }
        if Self.bodyGivesKey(request, keyColumns: keyColumns) { return nil }
        if entity == nil, let location {
            return "\(what()) names the created entity only by '\(redactedURL(String(location.prefix(300))))', which gives "
                + "no key of \(entitySet)"
        }
        return entity == nil
            ? "\(what()) names no entity: no body and no Location header"
            : "\(what()) does not hold the created entity's key (or not of its type)"
    }

    /// Whether a create's body gives every key property (the service does not assign it).
    static func bodyGivesKey(_ request: QueuedRequest, keyColumns: [StoredColumn]) -> Bool {
        guard let body = request.body, let document = try? JSONValue.parse(Array(body.utf8)) else { return false }
        let entity = document["d"] ?? document
        return !keyColumns.isEmpty && keyColumns.allSatisfy { column in entity[column.name].map { !$0.isNull } ?? false }
    }

    /// `Retry-After` in seconds, when given as a number (an HTTP date counts as unknown).
    static func retryAfter(_ response: HTTPResponse) -> Int? {
        guard let text = response.header("Retry-After"), let seconds = Int(text.trimmingSpaces()), seconds >= 0 else {
            return nil
        }
        return seconds
    }

    /// The message of an answer that stops the upload: what the service said and what to do.
    static func advice(for response: HTTPResponse) -> String {
        if CSRFToken.isRequired(by: response) {
            return "the service refused the CSRF token (403, X-CSRF-Token: Required) also after a new one was fetched: "
                + "check the session (cookies, credentials), then upload again"
        }
        switch response.status {
        case 401: return "the service wants valid credentials (401): check the user, password or token, then upload again"
        case 407: return "the proxy wants credentials (407): check the proxy settings, then upload again"
        case 408, 425: return "the service did not take the request now (\(response.status)): upload again later"
        case 429:
            let wait = retryAfter(response).map { " after \($0) s (Retry-After)" } ?? " later"
            return "the service is throttling requests (429): upload again\(wait)"
        case 502, 504:
            return "a gateway could not get the service's answer (\(response.status)): the request stays in doubt and the next "
                + "upload checks whether the service applied it"
        default:
            return "the service failed (\(response.status)): upload again later"
        }
    }
}
