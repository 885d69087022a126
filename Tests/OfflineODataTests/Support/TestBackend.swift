import Foundation
import OfflineOData

#if canImport(Glibc)
import Glibc
#endif

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
/// It runs `.venv/bin/python Tests/backends/backends.py serve v4|v2 ...` (or `$OOD_PYTHON` when
/// there is no `.venv`; `make backends-venv` makes one). Tests fail, they do not skip, when it
/// cannot start. `stop()` (idempotent, also called by `deinit` and at process exit) ends the
/// launcher with SIGTERM, which stops its server; whatever is left of the launcher's process group
/// is then killed.
final class TestBackend: @unchecked Sendable {
    enum Kind: String, Sendable { case v4, v2 }

    let kind: Kind
    /// Ends with a slash: `http://127.0.0.1:PORT/` (V4),
    /// `http://127.0.0.1:PORT/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/` (V2).
    let serviceRoot: String
    /// `http://127.0.0.1:PORT`, where `/_reset` is.
    let origin: String
    /// The pid of the launcher (`backends.py serve`); its server runs in the launcher's process group.
    var launcherPID: Int32 { process.processIdentifier }

    private let process: Process
    /// The launcher's process group (its pid), or 0 if it is not the leader of its own group.
    private let group: pid_t
    private let stdoutPipe: Pipe
    private let stderrFile: FileHandle
    private let transport: HTTPTransport
    private let lock = NSLock()
    private var stopped = false

    /// How long `start` waits for the service root line.
    static let startTimeout: Double = 60

    /// Starts a backend and returns once it serves.
    ///
    /// - Parameters:
    ///   - size: `tiny`, `small`, `medium` or `large` (`backends.SIZES`).
    ///   - pageSize: V4 only: server-driven paging with pages of this many entities.
    ///   - csrf: V2 only: false passes `--no-csrf`.
    /// - Throws: ``TestBackendError`` with the server's stderr if it exits or is not ready in time.
    static func start(_ kind: Kind, size: String = "small", pageSize: Int? = nil, csrf: Bool = true,
                      file: String = #filePath) throws -> TestBackend {
        let root = try repositoryRoot(from: file)
        let python = try pythonExecutable(root: root)
        var arguments = ["\(root)/Tests/backends/backends.py", "serve", kind.rawValue, "--size", size]
        if let pageSize { arguments += ["--page-size", String(pageSize)] }
        if !csrf { arguments.append("--no-csrf") }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        let stdoutPipe = Pipe()
        let stderrFile = try anonymousFile()
        process.standardOutput = stdoutPipe
        process.standardError = stderrFile
        process.standardInput = FileHandle.nullDevice
        do {
            try runWithDefaultSignalMask(process)
        } catch {
            throw TestBackendError(message: "could not run \(python): \(error)")
        }
        // Foundation's Process on Linux makes each child the leader of its own process group; the
        // launcher's server inherits it. Recorded now: once the launcher is reaped, getpgid fails.
        let group = getpgid(process.processIdentifier) == process.processIdentifier ? process.processIdentifier : 0
        BackendRegistry.shared.add(process, group: group)

        let line: String?
        do {
            line = try readFirstLine(stdoutPipe.fileHandleForReading.fileDescriptor, process: process,
                                     timeout: startTimeout)
        } catch {
            terminate(process, group: group)
            throw error
        }
        guard let line, line.hasPrefix("http://") else {
            let state = process.isRunning ? "not ready after \(Int(startTimeout)) s"
                : "exited with status \(process.terminationStatus)"
            terminate(process, group: group)
            throw TestBackendError(message: """
                \(kind) backend \(state) (\(python) \(arguments.joined(separator: " ")))
                stdout: \(line ?? "")
                stderr:
                \(tail(of: stderrFile))
                """)
        }
        do {
            return try TestBackend(kind: kind, serviceRoot: line, process: process, group: group,
                                   stdoutPipe: stdoutPipe, stderrFile: stderrFile)
        } catch {
            terminate(process, group: group)
            throw error
        }
    }

    private init(kind: Kind, serviceRoot: String, process: Process, group: pid_t, stdoutPipe: Pipe,
                 stderrFile: FileHandle) throws {
        self.kind = kind
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        self.origin = Self.origin(of: self.serviceRoot)
        self.process = process
        self.group = group
        self.stdoutPipe = stdoutPipe
        self.stderrFile = stderrFile
        do {
            transport = try HTTPTransport()
        } catch {
            throw TestBackendError(message: "HTTPTransport: \(error)")
        }
    }

    deinit { stop() }

    /// Restores the seed data: `POST <origin>/_reset`, which answers 204.
    func reset() throws {
        let response = try send(HTTPRequest(method: "POST", url: origin + "/_reset", body: []))
        guard response.status == 204 || response.status == 200 else {
            throw TestBackendError(message: "\(kind) reset answered \(response.status): \(response.text)")
        }
    }

    /// `GET` of `relativeURL` below the service root, e.g. `TravelagencyCollection?$filter=country eq 'US'`
    /// (spaces, quotes and other characters not allowed in a URL are percent-encoded here). V2
    /// requests carry `Accept: application/json` unless `headers` says otherwise.
    func get(_ relativeURL: String, headers: [String: String] = [:]) throws -> (status: Int, body: [UInt8]) {
        var list = headers.map { HTTPHeader($0.key, $0.value) }
        if kind == .v2, !headers.keys.contains(where: { $0.lowercased() == "accept" }) {
            list.append(HTTPHeader("Accept", "application/json"))
        }
        let response = try send(HTTPRequest(method: "GET", url: url(relativeURL), headers: list))
        return (response.status, response.body)
    }

    /// The absolute, percent-encoded URL of `relativeURL` below the service root.
    func url(_ relativeURL: String) -> String {
        let relative = relativeURL.hasPrefix("/") ? String(relativeURL.dropFirst()) : relativeURL
        return serviceRoot + Self.percentEncoded(relative)
    }

    /// Sends any request with the engine's transport.
    func send(_ request: HTTPRequest) throws -> HTTPResponse {
        do {
            return try transport.send(request)
        } catch {
            throw TestBackendError(message: "\(kind) \(request.method) \(request.url): \(error)\n"
                                   + "server stderr:\n\(Self.tail(of: stderrFile))")
        }
    }

    /// Ends the backend (SIGTERM, then SIGKILL after 10 s) and waits for it. Idempotent.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        Self.terminate(process, group: group)
        try? stdoutPipe.fileHandleForReading.close()
        try? stderrFile.close()
    }

    // MARK: - Processes

    /// SIGTERM to the launcher (it stops its server), wait; then SIGTERM and SIGKILL to whatever
    /// is left of its process group `group` (0: none of its own, only the launcher is signalled).
    static func terminate(_ process: Process, group: pid_t) {
        defer { BackendRegistry.shared.remove(process) }
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        if process.isRunning {
            kill(pid, SIGTERM)
            if !wait(for: process, seconds: 10) {
                kill(group > 0 ? -group : pid, SIGKILL)
                _ = wait(for: process, seconds: 5)
            }
        }
        // The launcher is gone; a server it could not stop (e.g. it was terminated before it
        // installed its SIGTERM handler) is still in the launcher's process group.
        if group > 0, kill(-group, 0) == 0 {
            kill(-group, SIGTERM)
            let deadline = monotonicSeconds() + 5
            while kill(-group, 0) == 0, monotonicSeconds() < deadline { usleep(20_000) }
            if kill(-group, 0) == 0 { kill(-group, SIGKILL) }
        }
    }

    /// `process.run()` with no signal blocked in the child. posix_spawn hands the calling thread's
    /// signal mask to the child, and Swift concurrency's and Dispatch's worker threads (where tests
    /// run) block SIGTERM and SIGINT, so the launcher would never see the SIGTERM that stops it.
    private static func runWithDefaultSignalMask(_ process: Process) throws {
        var empty = sigset_t()
        var saved = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try process.run()
    }

    /// Waits until `process` has exited (and Foundation has reaped it), at most `seconds`.
    private static func wait(for process: Process, seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while process.isRunning {
            if monotonicSeconds() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// The first line on `fd`, or nil if the process closed stdout or exited without one.
    private static func readFirstLine(_ fd: Int32, process: Process, timeout: Double) throws -> String? {
        let deadline = monotonicSeconds() + timeout
        var buffered: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while monotonicSeconds() < deadline {
            var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, 200)
            if ready < 0 {
                if errno == EINTR { continue }
                throw TestBackendError(message: "poll on the backend's stdout failed: errno \(errno)")
            }
            if ready == 0 {
                if !process.isRunning { break }
                continue
            }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw TestBackendError(message: "read of the backend's stdout failed: errno \(errno)")
            }
            if count == 0 { break }  // stdout closed: the launcher exited
            buffered += chunk[0..<count]
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: buffered[..<newline], as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        // Give an exiting launcher a moment, so the error can say how it exited.
        _ = wait(for: process, seconds: 2)
        return buffered.isEmpty ? nil : String(decoding: buffered, as: UTF8.self)
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A temporary file, already unlinked, for the launcher's stderr: a pipe nobody reads could
    /// fill up and block the server.
    private static func anonymousFile() throws -> FileHandle {
        var template = Array("/tmp/ood-backend-stderr-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw TestBackendError(message: "mkstemp failed: errno \(errno)") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// The last 4,000 bytes the launcher wrote to stderr.
    private static func tail(of file: FileHandle) -> String {
        let fd = file.fileDescriptor
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { return "(stderr unavailable)" }
        let start = max(0, size - 4000)
        var bytes = [UInt8](repeating: 0, count: Int(size - start))
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, start) }
        return count > 0 ? String(decoding: bytes[0..<count], as: UTF8.self) : "(empty)"
    }

    // MARK: - Paths and URLs

    /// The folder holding Package.swift, found by walking up from `file`.
    static func repositoryRoot(from file: String = #filePath) throws -> String {
        var folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder.path
            }
            folder = folder.deletingLastPathComponent()
        }
        throw TestBackendError(message: "no Package.swift above \(file)")
    }

    /// `<root>/.venv/bin/python`, else `$OOD_PYTHON`.
    static func pythonExecutable(root: String) throws -> String {
        let venv = "\(root)/.venv/bin/python"
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        if let python = ProcessInfo.processInfo.environment["OOD_PYTHON"], !python.isEmpty {
            return python
        }
        throw TestBackendError(message: """
            The test backends need Python with odatapy and mock-sap: no \(venv) and no OOD_PYTHON. \
            Run `make venv` (or `make backends-venv`) in \(root).
            """)
    }

    /// `http://host:port` of an absolute URL (what `/_reset` hangs off, as in backends.py).
    private static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let host = rest.firstIndex(of: "/").map { rest[..<$0] } ?? rest
        return String(url[..<scheme.upperBound]) + host
    }

    /// Percent-encodes what may not appear in a URL as it is (space, quotes, `<>{}|\^` and
    /// backtick, controls, non-ASCII); keeps `%`, reserved characters and the rest.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case 0x21, 0x23...0x26, 0x28...0x3B, 0x3D, 0x3F...0x5B, 0x5D, 0x5F, 0x61...0x7A, 0x7E:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Every backend process still running, so that the ones a test never stopped (a leaked
/// `TestBackend`) are ended when the test process exits normally.
private final class BackendRegistry: @unchecked Sendable {
    static let shared = BackendRegistry()
    private let lock = NSLock()
    private var processes: [ObjectIdentifier: (process: Process, group: pid_t)] = [:]

    private init() {
        atexit { BackendRegistry.shared.stopAll() }
    }

    func add(_ process: Process, group: pid_t) {
        lock.withLock { processes[ObjectIdentifier(process)] = (process, group) }
    }

    func remove(_ process: Process) {
        _ = lock.withLock { processes.removeValue(forKey: ObjectIdentifier(process)) }
    }

    func stopAll() {
        let running = lock.withLock { Array(processes.values) }
        for entry in running { TestBackend.terminate(entry.process, group: entry.group) }
    }
}
