#if canImport(Glibc)
import Glibc
#endif
@testable import OfflineOData

/// A request as the test server received it.
struct ReceivedRequest: Sendable {
    var method: String
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the test server does with a request.
enum TestHTTPBehaviour: Sendable {
    /// Answer with this status, headers and body (Content-Length set).
    case respond(status: Int, headers: [(String, String)], body: [UInt8])
    /// Send headers announcing `announced` bytes, then only `body`, then close: a cut connection.
    case cut(announced: Int, body: [UInt8])
    /// Say nothing for this many seconds, then close.
    case hang(seconds: Double)
    /// Close the connection at once, without an answer.
    case close

    static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> TestHTTPBehaviour {
        .respond(status: status, headers: headers, body: Array(body.utf8))
    }
}

/// A small HTTP/1.1 server on 127.0.0.1 and a free port, for the transport's tests.
///
/// Each connection is served on its own thread with keep-alive; `handler` decides each answer.
/// Only for tests: bounded request sizes, no TLS, stops when `stop()` is called.
final class TestHTTPServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let handler: @Sendable (ReceivedRequest) -> TestHTTPBehaviour
    private let lock = NSLockLike()
    private var received: [ReceivedRequest] = []
    /// Broadcast at each request received, for ``waitForRequests(_:seconds:)``.
    private let arrivals = ConditionLock()
    private var connections = 0
    private var acceptThread = pthread_t()

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    var requests: [ReceivedRequest] { lock.locked { received } }
    /// Waits (up to `seconds`) until `count` requests were received; woken by each arrival, so
    /// it returns as soon as they are in. False when the time passed first.
    func waitForRequests(_ count: Int, seconds: Double = 10) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return arrivals.withLock {
            while requests.count < count && monotonicSeconds() < deadline { arrivals.wait(until: deadline) }
            return requests.count >= count
        }
    }

    /// How many TCP connections were accepted (to check connection reuse).
    var connectionCount: Int { lock.locked { connections } }

    init(handler: @escaping @Sendable (ReceivedRequest) -> TestHTTPBehaviour) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.socket }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw TestServerError.socket }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        startThread(&acceptThread) { [self] in acceptLoop() }
    }

    /// Stops accepting; open connections end when their client closes them.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        pthread_join(acceptThread, nil)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 && errno == EINTR { continue }
            if client < 0 { return }
            lock.locked { connections += 1 }
            var thread = pthread_t()
            startThread(&thread) { [self] in serve(client) }
            pthread_detach(thread)
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer: [UInt8] = []
        while let request = readRequest(client, &buffer) {
            lock.locked { received.append(request) }
            arrivals.withLock { arrivals.broadcast() }
            switch handler(request) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) \(reason(status))\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "\r\n"
                guard send(client, Array(head.utf8) + body) else { return }
            case .cut(let announced, let body):
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(announced)\r\n\r\n"
                _ = send(client, Array(head.utf8) + body)
                return
            case .hang(let seconds):
                usleep(UInt32(seconds * 1_000_000))
                return
            case .close:
                return
            }
        }
    }

    /// Reads one request (headers, then a Content-Length body); nil when the client closed.
    private func readRequest(_ client: Int32, _ buffer: inout [UInt8]) -> ReceivedRequest? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            if let found = buffer.firstRange(of: separator) { headerEnd = found.upperBound; break }
            guard receive(client, &buffer) else { return nil }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        guard requestLine.count >= 2 else { return nil }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        let length = headers.last { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        while buffer.count < end + length {
            guard receive(client, &buffer) else { return nil }
        }
        let body = Array(buffer[end..<(end + length)])
        buffer.removeFirst(end + length)
        return ReceivedRequest(method: requestLine[0], target: requestLine[1], headers: headers, body: body)
    }

    private func receive(_ client: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var count: Int
        // A signal to the test process (another test's child exiting) may interrupt the wait:
        // that is no closed connection, so the read is tried again.
        repeat {
            count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 412: "Precondition Failed"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}

enum TestServerError: Error { case socket }

/// A pthread mutex for test support code.
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

/// Starts `body` on a new thread.
func startThread(_ thread: inout pthread_t, _ body: @escaping () -> Void) {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        box.body()
        return nil
    }, box)
}

extension String {
    func trimmingSpaces() -> String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Nanoseconds from a monotonic clock, for tests that check a wait ended early (not for speed).
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
