@testable import OfflineOData

/// A forwarding proxy in front of a test backend that records what reached the service, so a
/// test can see which credentials each request carried (docs/SHARED-DEVICE.md). Each request is
/// sent on by a transport of its own (no cookie of one request rides on another), `Host` kept so
/// the links the service writes point back through the proxy.
final class CredentialRecorder: @unchecked Sendable {
    let server: TestHTTPServer
    /// The backend's service root as seen through the proxy.
    let serviceRoot: String

    init(_ backend: TestBackend) throws {
        let origin = backend.origin
        server = try TestHTTPServer { request in
            let dropped: Set<String> = ["content-length", "connection", "accept-encoding", "transfer-encoding"]
            let headers = request.headers.filter { !dropped.contains($0.name.lowercased()) }.map { HTTPHeader($0.name, $0.value) }
            do {
                let transport = try HTTPTransport(options: HTTPOptions())
                let answer = try transport.send(HTTPRequest(method: request.method, url: origin + request.target, headers: headers,
                                                            body: request.body.isEmpty && request.method == "GET" ? nil : request.body))
                let kept = answer.headers.filter { !["content-length", "connection", "transfer-encoding", "content-encoding"].contains($0.name.lowercased()) }
                return .respond(status: answer.status, headers: kept.map { ($0.name, $0.value) }, body: answer.body)
            } catch {
                return .text(502, "proxy: \(error)")
            }
        }
        serviceRoot = server.baseURL + String(backend.serviceRoot.dropFirst(origin.count))
    }

    func stop() { server.stop() }

    /// Every request that reached the service so far.
    var requests: [ReceivedRequest] { server.requests }

    /// The requests since `mark` (a count of ``requests`` taken before).
    func requests(since mark: Int) -> [ReceivedRequest] { Array(requests.dropFirst(mark)) }

    /// The `Authorization` header of HTTP basic authentication for `user` and `password`.
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + base64(Array("\(user):\(password)".utf8))
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return out
    }
}
