/// The settings of a transport: timeouts, TLS, authentication, and headers and cookies sent with
/// every request. They can be changed while the transport is in use (``HTTPTransport/update(_:)``).
public struct HTTPOptions: Sendable, Equatable {
    /// Seconds to wait for a connection.
    public var connectTimeout: Double = 15
    /// Seconds a whole request may take, from connecting to the last byte of the answer.
    public var requestTimeout: Double = 300
    /// Verify the service's TLS certificate and host name. On unless switched off on purpose.
    public var verifyTLS: Bool = true
    /// A file of CA certificates (PEM) to verify with, instead of the system's.
    public var caFile: String?
    /// A folder of CA certificates to verify with.
    public var caPath: String?
    public var authentication: HTTPAuthentication?
    /// Sent with every request (after the engine's own headers, so they can replace them).
    public var headers: [HTTPHeader] = []
    /// Cookies sent with every request, as name and value; the session cookies the service sets
    /// are kept on top of these (SAP Gateway's CSRF protocol needs them).
    public var cookies: [HTTPHeader] = []
    public var userAgent: String = "OfflineOData/\(OfflineODataVersion.string)"
    /// The most bytes one answer's body may have, counted after decompression (a small gzip
    /// answer can inflate to gigabytes). A larger answer stops with ``ODataError/Code/network``.
    /// 256 MiB by default: a page or a `$metadata` document is far smaller, and an answer without
    /// a receiver of its own is held in memory whole, so the limit bounds what a service can make
    /// the host allocate.
    public var maximumResponseSize: Int = 256 << 20
    /// The most pages one download of a defining request follows (next links); more stops with
    /// ``ODataError/Code/network``: a guard against a service whose next links never end.
    public var maximumPages: Int = 1_000_000
    /// The most bytes a `$metadata` document may have, fetched or given (64 MiB by default; large
    /// real services publish a few MiB). A larger one stops with ``ODataError/Code/metadata``
    /// before it is parsed: its model would take several times its size in memory.
    public var maximumMetadataSize: Int = 64 << 20
    /// The most characters of a service's error message that errors show and the error archive
    /// keeps (1,000 by default); the rest is cut and marked `...`. A service could otherwise make
    /// every archived refusal as large as an answer may be.
    public var maximumMessageLength: Int = ServiceError.defaultLongestMessage
    /// The most bytes one value of a downloaded page may have as JSON text: a string (so an
    /// `Edm.Binary` in base64), a number or a member name. A larger one stops the download with
    /// ``ODataError/Code/network`` naming the property, before anything of its page is stored.
    /// 16 MiB by default: real services send text and small binaries inline (a photo, a PDF of a
    /// few MB is 4/3 of it in base64) and larger files as media streams (`$value`), never in a
    /// page. The limit bounds a download's memory: a value is copied a few times on its way into
    /// the store (decoded, bound, SQLite's record and cache), so a page costs its bytes plus about
    /// five times this limit, not four times its own size.
    public var maximumValueSize: Int = 16 << 20
    /// Told of every request and answer, credentials masked (the tool's `--verbose`); nil tells no one.
    @_spi(Tool) public var trace: HTTPTrace?

    public init() {}

    /// Throws ``ODataError/Code/misuse`` for a header or cookie that would break the request apart:
    /// CR, LF or NUL in a header's or cookie's name or value (a line of its own, a header of the
    /// attacker's choosing), an empty name, a cookie name with `=`, `;` or white space, a cookie value
    /// with `;`, a bearer token or user agent with CR, LF or NUL; and for limits that are not positive.
    /// The transport checks before every request.
    public func validate() throws(ODataError) {
        for header in headers {
            try Self.checkHeader(name: header.name, value: header.value)
        }
        for cookie in cookies {
            try Self.checkCookie(name: cookie.name, value: cookie.value)
        }
        if case .bearer(let token) = authentication, Self.containsLineBreakOrNUL(token) {
            throw ODataError(.misuse, "the bearer token contains CR, LF or NUL")
        }
        guard !Self.containsLineBreakOrNUL(userAgent) else { throw ODataError(.misuse, "the user agent contains CR, LF or NUL") }
        guard maximumResponseSize > 0 else { throw ODataError(.misuse, "the maximum response size must be above 0 bytes") }
        guard maximumPages > 0 else { throw ODataError(.misuse, "the maximum number of pages must be above 0") }
        guard maximumMetadataSize > 0 else { throw ODataError(.misuse, "the maximum $metadata size must be above 0 bytes") }
        guard maximumMessageLength > 0 else { throw ODataError(.misuse, "the maximum message length must be above 0 characters") }
        guard maximumValueSize > 0 else { throw ODataError(.misuse, "the maximum value size must be above 0 bytes") }
    }

    /// Throws unless `name: value` is one header line: a name without CR, LF, NUL, colon or white
    /// space, and a value without CR, LF or NUL.
    public static func checkHeader(name: String, value: String) throws(ODataError) {
        guard !name.isEmpty else { throw ODataError(.misuse, "a header name is empty") }
        guard !name.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ":") }) else {
            throw ODataError(.misuse, "the header name '\(printable(name))' contains a control character, white space or a colon")
        }
        guard !containsLineBreakOrNUL(value) else {
            throw ODataError(.misuse, "the value of the header '\(name)' contains CR, LF or NUL")
        }
    }

    /// Throws unless `name=value` is one cookie: a name without CR, LF, NUL, `=`, `;` or white space,
    /// and a value without CR, LF, NUL or `;`.
    public static func checkCookie(name: String, value: String) throws(ODataError) {
        guard !name.isEmpty else { throw ODataError(.misuse, "a cookie name is empty") }
        guard !name.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",") }) else {
            throw ODataError(.misuse, "the cookie name '\(printable(name))' contains a control character, white space, '=', ';' or ','")
        }
        guard !containsLineBreakOrNUL(value), !value.utf8.contains(UInt8(ascii: ";")) else {
            throw ODataError(.misuse, "the value of the cookie '\(name)' contains CR, LF, NUL or ';'")
        }
    }

    static func containsLineBreakOrNUL(_ text: String) -> Bool {
        text.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    /// `text` with its control characters written as `\u{..}`, for a message.
    private static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { result += "\\u{\(String(scalar.value, radix: 16))}" } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
