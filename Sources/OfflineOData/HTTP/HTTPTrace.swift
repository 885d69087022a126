#if canImport(Glibc)
import Glibc
#endif

/// Where a transport tells what it sends and what it gets back, a line at a time: the tool's
/// `--verbose` (one line per request and per answer) and `--trace` (their headers too).
///
/// Credentials never reach it: the headers that carry them (``CredentialHeaders``) show `***`,
/// and URLs lose their user-info part. Bodies are not shown, only their sizes.
@_spi(Tool) public final class HTTPTrace: Sendable, Equatable {
    /// Whether the headers of requests and answers are shown too.
    public let showsHeaders: Bool
    private let sink: @Sendable (String) -> Void

    public init(showsHeaders: Bool, _ sink: @escaping @Sendable (String) -> Void) {
        self.showsHeaders = showsHeaders
        self.sink = sink
    }

    /// One trace is the same as itself only: options compare equal when they report to the same place.
    public static func == (lhs: HTTPTrace, rhs: HTTPTrace) -> Bool { lhs === rhs }

    func request(_ request: HTTPRequest, headers: [HTTPHeader]) {
        let size = request.body.map { " (\($0.count) bytes)" } ?? ""
        sink("> \(request.method) \(redactedURL(request.url))\(size)")
        if showsHeaders { for header in headers { sink(">   \(header.name): \(header.value)") } }
    }

    func answer(_ response: HTTPResponse, received: Int, since start: timespec) {
        sink("< \(response.status) (\(received) bytes, \(Self.milliseconds(since: start)) ms)")
        if showsHeaders {
            for header in response.headers {
                let value = CredentialHeaders.isCredential(header.name) ? CredentialHeaders.mask : header.value
                sink("<   \(header.name): \(value)")
            }
        }
    }

    func failure(_ error: ODataError, since start: timespec) {
        sink("< failed after \(Self.milliseconds(since: start)) ms: \(error.message)")
    }

    static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time
    }

    private static func milliseconds(since start: timespec) -> Int {
        let end = now()
        return (end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1_000_000
    }
}
