import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// `--service`, `--user`, `--token`, `--header`, `--cookie`, the limits: how a subcommand reaches the service.
///
/// The password is never an argument (it would show in `ps` and shell history): it comes from
/// `OFFLINE_ODATA_PASSWORD`, or from a prompt on the terminal with echo off.
struct ServiceOptions: ParsableArguments {
    /// The environment variable the password of `--user` is read from.
    static let passwordVariable = "OFFLINE_ODATA_PASSWORD"
    /// The environment variable a bearer token is read from when `--token` is not given.
    static let tokenVariable = "OFFLINE_ODATA_TOKEN"

    @Option(name: .customLong("service"), help: "The service root URL for this command (default: the one the store keeps).")
    var serviceRoot: String?

    @Flag(help: "Also keep --service in the store for later commands (its delta links are dropped: the next download is a full one).")
    var saveService = false

    @Option(help: "User name for basic authentication; the password comes from OFFLINE_ODATA_PASSWORD, else a prompt on the terminal (never from an argument).")
    var user: String?

    @Option(help: "A bearer token (OFFLINE_ODATA_TOKEN keeps it out of the process list).")
    var token: String?

    @Flag(help: "Do not verify the service's TLS certificate (for test services only).")
    var insecure = false

    @Option(help: "Seconds one HTTP request may take, connecting included, before it fails as timed out (default: 300).")
    var timeout: Double?

    @Option(name: .customLong("header"), help: ArgumentHelp("A header sent with every request, as 'Name: value' (repeatable).", valueName: "name: value"))
    var headers: [String] = []

    @Option(name: .customLong("cookie"), help: ArgumentHelp("A cookie sent with every request, as 'name=value' (repeatable).", valueName: "name=value"))
    var cookies: [String] = []

    @Option(help: "The most bytes one answer of the service may have, counted after decompression (default: 268435456, 256 MiB).")
    var maxResponseSize: Int?

    @Option(help: "The most pages one download of a defining request follows (default: 1000000).")
    var maxPages: Int?

    @Option(help: "The most bytes of the service's $metadata document (default: 67108864, 64 MiB).")
    var maxMetadataSize: Int?

    @Option(help: "The most characters of a service's error message shown and archived (default: 1000).")
    var maxMessageLength: Int?

    @Option(help: "The most bytes of one value (a string, a number) in a downloaded page; a page with a larger one is refused (default: 16777216, 16 MiB).")
    var maxValueSize: Int?

    @Flag(help: "Show each HTTP request and answer on standard error (method, URL, status, size, time; credentials never shown).")
    var verbose = false

    @Flag(help: "As --verbose, with the headers of each request and answer (credentials masked as ***).")
    var trace = false

    func validate() throws {
        if let timeout, !(timeout.isFinite && timeout > 0) {
            throw ValidationError("--timeout takes a positive number of seconds, not \(timeout)")
        }
        if saveService && serviceRoot == nil { throw ValidationError("--save-service needs --service") }
        if let serviceRoot {
            let scheme = serviceRoot.prefix { $0 != ":" }.lowercased()
            guard serviceRoot.contains("://"), scheme == "http" || scheme == "https" else {
                throw ValidationError("--service takes an http or https URL, not '\(terminalSafe(serviceRoot))'")
            }
        }
        if let maxResponseSize, maxResponseSize <= 0 { throw ValidationError("--max-response-size takes a positive number of bytes") }
        if let maxPages, maxPages <= 0 { throw ValidationError("--max-pages takes a positive number") }
        if let maxMetadataSize, maxMetadataSize <= 0 { throw ValidationError("--max-metadata-size takes a positive number of bytes") }
        if let maxMessageLength, maxMessageLength <= 0 { throw ValidationError("--max-message-length takes a positive number") }
        if let maxValueSize, maxValueSize <= 0 { throw ValidationError("--max-value-size takes a positive number of bytes") }
        for header in headers where header.firstIndex(of: ":") == nil {
            throw ValidationError("--header takes 'Name: value', not '\(header)'")
        }
        for cookie in cookies where cookie.firstIndex(of: "=") == nil {
            throw ValidationError("--cookie takes 'name=value', not '\(cookie)'")
        }
    }

    /// The HTTP options these arguments ask for.
    func httpOptions() throws(ODataError) -> HTTPOptions {
        var options = HTTPOptions()
        options.verifyTLS = !insecure
        if insecure {
            // Said every time: it must never become a setting nobody remembers.
            var standardError = StandardErrorStream()
            print("warning: --insecure: the service's TLS certificate is not verified, so anyone between this machine and "
                  + "the service can read and change what is sent, credentials included", to: &standardError)
        }
        if let timeout {
            options.requestTimeout = timeout
            options.connectTimeout = min(options.connectTimeout, timeout)
        }
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { continue }
            let value = header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            options.headers.append(HTTPHeader(String(header[..<colon]), String(value)))
        }
        for cookie in cookies {
            guard let equals = cookie.firstIndex(of: "=") else { continue }
            options.cookies.append(HTTPHeader(String(cookie[..<equals]), String(cookie[cookie.index(after: equals)...])))
        }
        if let maxResponseSize { options.maximumResponseSize = maxResponseSize }
        if let maxPages { options.maximumPages = maxPages }
        if let maxMetadataSize { options.maximumMetadataSize = maxMetadataSize }
        if let maxMessageLength { options.maximumMessageLength = maxMessageLength }
        if let maxValueSize { options.maximumValueSize = maxValueSize }
        if verbose || trace {
            options.trace = HTTPTrace(showsHeaders: trace) { line in
                var standardError = StandardErrorStream()
                print(terminalSafe(line), to: &standardError)
            }
        }
        if let user {
            options.authentication = .basic(user: user, password: try password(for: user))
        } else if let token = token ?? environment(Self.tokenVariable) {
            options.authentication = .bearer(token: token)
        }
        // CR, LF or NUL in a header or cookie (or the token) is refused here, naming it.
        try options.validate()
        return options
    }

    private func password(for user: String) throws(ODataError) -> String {
        if let password = environment(Self.passwordVariable) { return password }
        // getpass reads the controlling terminal with echo off; without one it would read a pipe.
        guard isatty(0) == 1 else {
            throw ODataError(.misuse, "--user needs a password: set \(Self.passwordVariable) (there is no terminal to ask on; "
                             + "the password is never taken from the command line)")
        }
        guard let entered = getpass("Password for \(user): ") else {
            throw ODataError(.misuse, "no password was entered for \(user)")
        }
        return String(cString: entered)
    }
}

/// The value of an environment variable; unset and empty are the same (`VAR= cmd` clears it).
func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}
