/// A request the transport sends.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `MERGE` (OData V2), `DELETE`, ...
    public var method: String
    /// The absolute URL. Credentials never go here: see ``HTTPAuthentication``.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?

    public init(method: String = "GET", url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a request: status, headers (of the final response, after redirects) and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    /// The body, unless the caller consumed it chunk by chunk while it arrived.
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name` (compared without case); the last one if it is repeated.
    public func header(_ name: String) -> String? {
        let wanted = asciiLowercased(name)
        return headers.last { asciiLowercased($0.name) == wanted }?.value
    }

    /// Every value of the header `name` (compared without case), e.g. each `Set-Cookie`.
    public func headers(named name: String) -> [String] {
        let wanted = asciiLowercased(name)
        return headers.filter { asciiLowercased($0.name) == wanted }.map(\.value)
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// How the transport proves who it is to the service.
public enum HTTPAuthentication: Sendable, Equatable {
    case basic(user: String, password: String)
    case bearer(token: String)
}

/// Header names are case-insensitive ASCII.
func asciiLowercased(_ text: String) -> String {
    String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
}

/// HTTP methods are ASCII, compared in upper case.
func asciiUppercased(_ text: String) -> String {
    String(decoding: text.utf8.map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }, as: UTF8.self)
}
