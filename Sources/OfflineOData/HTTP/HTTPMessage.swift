/// A request the transport sends.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `MERGE` (OData V2), `DELETE`, ...
    package var method: String
    /// The absolute URL. Credentials never go here: see ``HTTPAuthentication``.
    package var url: String
    package var headers: [HTTPHeader]
    package var body: [UInt8]?
    /// A file whose bytes are the body, read a buffer at a time as they leave (a media stream,
    /// issue 35): never held in memory. Takes the place of `body` when set.
    package var bodyFile: String?
    /// Told the bytes of ``bodyFile`` sent while they travel (a media upload's progress).
    package var bodyFileProgress: HTTPBodyFileProgress?

    package init(method: String = "GET", url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a request: status, headers (of the final response, after redirects) and body.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [HTTPHeader]
    /// The body, unless the caller consumed it chunk by chunk while it arrived.
    package var body: [UInt8]

    package init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header `name` (compared without case); the last one if it is repeated.
    package func header(_ name: String) -> String? {
        let wanted = asciiLowercased(name)
        return headers.last { asciiLowercased($0.name) == wanted }?.value
    }

    /// Every value of the header `name` (compared without case), e.g. each `Set-Cookie`.
    package func headers(named name: String) -> [String] {
        let wanted = asciiLowercased(name)
        return headers.filter { asciiLowercased($0.name) == wanted }.map(\.value)
    }

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
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
