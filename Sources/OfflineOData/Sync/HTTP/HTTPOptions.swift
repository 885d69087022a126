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

    public init() {}
}
