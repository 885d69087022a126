#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Why a test backend could not be started or asked something.
struct TestBackendError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One of the project's real OData test services (`Tests/backends/README.md`), started for a test:
/// odatapy for V4, mock-sap for V2, on 127.0.0.1 and a free port, serving the flight sample.
///
///     let v4 = try TestBackend.start(.v4)
///     defer { v4.stop() }
///     let (status, body) = try v4.get("TravelagencyCollection?$filter=country eq 'US'")
///
/// It runs `.venv/bin/python Tests/backends/backends.py serve v4|v2 ...` (or `$OOD_PYTHON`;
/// `make backends-venv` makes the venv). Tests fail, they do not skip, when it cannot start.
///
/// Written with `posix_spawn`, not Foundation's `Process`: Foundation's ICU module clashes with
/// libxml2's ICU headers when the tests are built with the thread sanitizer (`make tsan`).
/// Two lessons kept from a `Process` version:
/// - the child gets an empty signal mask: test threads block SIGTERM, a child inherits the mask,
///   and a launcher that never sees SIGTERM cannot be stopped;
/// - the launcher leads a process group of its own, so `stop()` also ends a server the launcher
///   left behind.
final class TestBackend: @unchecked Sendable {
    enum Kind: String, Sendable { case v4, v2 }

    let kind: Kind
    /// Ends with a slash: `http://127.0.0.1:PORT/` (V4), `.../sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/` (V2).
    let serviceRoot: String
    /// `http://127.0.0.1:PORT`.
    let origin: String
    let launcherPID: pid_t
    private let transport: HTTPTransport
    private let stopped = Protected<Bool>(false)

    static let startTimeout: Double = 60

    private init(kind: Kind, serviceRoot: String, pid: pid_t) throws {
        self.kind = kind
        self.serviceRoot = serviceRoot
        self.launcherPID = pid
        let afterScheme = serviceRoot.dropFirst("http://".count)
        origin = "http://" + afterScheme.prefix { $0 != "/" }
        do {
            transport = try HTTPTransport()
        } catch {
            throw TestBackendError(message: "cannot make an HTTP transport: \(error)")
        }
    }

    deinit { stop() }

    /// Starts a backend with the flight sample of `size` (tiny, small, medium, large).
    ///
    /// `metadata` serves another version of the sample's model (a file path), and `port` a given
    /// port: a test changes the service's model by stopping it and starting it again so.
    static func start(_ kind: Kind, size: String = "small", pageSize: Int? = nil, csrf: Bool = true,
                      metadata: String? = nil, port: Int? = nil, media: (count: Int, size: Int)? = nil) throws -> TestBackend {
        let python = pythonPath()
        guard access(python, X_OK) == 0 else {
            throw TestBackendError(message: "no Python at \(python): run `make backends-venv` first, or set OOD_PYTHON")
        }
        var arguments = [python, FlightSample.repositoryRoot + "/Tests/backends/backends.py", "serve", kind.rawValue, "--size", size]
        if let pageSize { arguments += ["--page-size", String(pageSize)] }
        if !csrf { arguments.append("--no-csrf") }
        if let metadata { arguments += ["--metadata", metadata] }
        if let port { arguments += ["--port", String(port)] }
        if let media { arguments += ["--media", "\(media.count):\(media.size)"] }  // docs/MEDIA.md

        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestBackendError(message: "cannot make a pipe for the backend") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let (pid, rc) = spawnProcess(arguments, actions: &actions)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard rc == 0 else { throw TestBackendError(message: "cannot start \(python): error \(rc)") }
        guard let line = readLine(from: pipe[0], timeout: startTimeout), line.hasPrefix("http://") else {
            terminate(pid)
            throw TestBackendError(message: "the \(kind) backend did not start: \(arguments.dropFirst().joined(separator: " ")) "
                                   + "(its errors are in the test output above)")
        }
        return try TestBackend(kind: kind, serviceRoot: line, pid: pid)
    }

    /// The port the service listens on.
    var port: Int { Int(origin.split(separator: ":").last ?? "") ?? 0 }

    /// Ends the backend and its server; harmless when called twice.
    func stop() {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { Self.terminate(launcherPID) }
    }

    /// Restores the sample data (`POST /_reset` at the server's origin).
    func reset() throws {
        let response = try send(HTTPRequest(method: "POST", url: origin + "/_reset", body: []))
        guard response.status == 204 || response.status == 200 else {
            throw TestBackendError(message: "reset answered \(response.status)")
        }
    }

    /// Asks the service directly: `relativeURL` against the service root, spaces and quotes
    /// encoded; JSON (plain text for `/$count`) asked for unless `headers` names an Accept.
    func get(_ relativeURL: String, headers: [String: String] = [:]) throws -> (status: Int, body: [UInt8]) {
        var list = headers.map { HTTPHeader($0.key, $0.value) }
        if !headers.keys.contains(where: { $0.lowercased() == "accept" }) {
            // odatapy answers 406 to a JSON-only Accept on `/$count`, which is plain text.
            let isCount = relativeURL.prefix { $0 != "?" }.hasSuffix("/$count")
            list.append(HTTPHeader("Accept", isCount ? "text/plain" : "application/json"))
        }
        let response = try send(HTTPRequest(method: "GET", url: url(relativeURL), headers: list))
        return (response.status, response.body)
    }

    /// The absolute, encoded URL of `relativeURL`.
    func url(_ relativeURL: String) -> String {
        ServiceURL.resolve(relativeURL.hasPrefix("/") ? String(relativeURL.dropFirst()) : relativeURL, against: serviceRoot)
    }

    /// Sends any request to the service; fails once the backend is stopped.
    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        guard !stopped.withLock({ $0 }) else { throw TestBackendError(message: "the \(kind) backend is stopped") }
        do {
            return try transport.send(request)
        } catch {
            throw TestBackendError(message: "\(request.method) \(request.url): \(error)")
        }
    }

    private static func pythonPath() -> String {
        if let override = getenv("OOD_PYTHON") { return String(cString: override) }
        return FlightSample.repositoryRoot + "/.venv/bin/python"
    }

    /// SIGTERM to the launcher's process group (the launcher stops its server on it), then
    /// SIGKILL to whatever of the group is left after 5 seconds.
    private static func terminate(_ pid: pid_t) {
        kill(-pid, SIGTERM)
        let deadline = monotonicSeconds() + 5
        var status: Int32 = 0
        while monotonicSeconds() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(10_000)
        }
        kill(-pid, SIGKILL)
        _ = waitpid(pid, &status, WNOHANG)
    }

    /// The first line written to `fd`, or nil at end of file or after `timeout` seconds.
    private static func readLine(from fd: Int32, timeout: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
