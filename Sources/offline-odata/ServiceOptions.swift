import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import OfflineOData

/// `--service`, `--user`, `--token`: how a subcommand reaches the service.
///
/// The password is never an argument (it would show in `ps` and shell history): it comes from
/// `OFFLINE_ODATA_PASSWORD`, or from a prompt on the terminal.
struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("service"), help: "The service root URL (default: the one the store was created with).")
    var serviceRoot: String?

    @Option(help: "User name for basic authentication; the password comes from OFFLINE_ODATA_PASSWORD or a prompt.")
    var user: String?

    @Option(help: "A bearer token (or set OFFLINE_ODATA_TOKEN).")
    var token: String?

    @Flag(help: "Do not verify the service's TLS certificate (for test services only).")
    var insecure = false

    @Option(help: "Seconds one HTTP request may take, connecting included, before it fails as timed out (default: 300).")
    var timeout: Double?

    func validate() throws {
        if let timeout, !(timeout.isFinite && timeout > 0) {
            throw ValidationError("--timeout takes a positive number of seconds, not \(timeout)")
        }
    }

    /// The HTTP options these arguments ask for.
    func httpOptions() throws(ODataError) -> HTTPOptions {
        var options = HTTPOptions()
        options.verifyTLS = !insecure
        if let timeout {
            options.requestTimeout = timeout
            options.connectTimeout = min(options.connectTimeout, timeout)
        }
        if let user {
            options.authentication = .basic(user: user, password: try password(for: user))
        } else if let token = token ?? environment("OFFLINE_ODATA_TOKEN") {
            options.authentication = .bearer(token: token)
        }
        return options
    }

    private func password(for user: String) throws(ODataError) -> String {
        if let password = environment("OFFLINE_ODATA_PASSWORD") { return password }
        guard isatty(0) == 1 else {
            throw ODataError(.misuse, "--user needs a password: set OFFLINE_ODATA_PASSWORD (there is no terminal to ask on)")
        }
        guard let entered = getpass("Password for \(user): ") else {
            throw ODataError(.misuse, "no password was entered")
        }
        return String(cString: entered)
    }
}

func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}
