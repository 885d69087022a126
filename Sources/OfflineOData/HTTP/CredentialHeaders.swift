/// Which headers carry credentials, so that what the engine shows of a request (an upload's
/// preview) never shows them: `Authorization`, `Proxy-Authorization`, `Cookie`, and any header
/// whose name says it holds a secret (an API key, a token, a password, a session).
enum CredentialHeaders {
    /// What a masked value shows instead.
    static let mask = "***"

    static func isCredential(_ name: String) -> Bool {
        let lowered = asciiLowercased(name)
        if ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(lowered) { return true }
        return ["token", "secret", "password", "passwd", "api-key", "apikey", "api_key", "session", "auth"]
            .contains { lowered.contains($0) }
    }
}
