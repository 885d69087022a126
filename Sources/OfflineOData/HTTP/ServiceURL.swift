/// Builds the absolute URLs the engine sends: a store's relative URLs against its service root,
/// and the links services return (`@odata.nextLink` may be relative), percent-encoding what a URL
/// may not contain (the spaces and quotes of `$filter=country eq 'US'`).
package enum ServiceURL {
    /// `relative` resolved against `serviceRoot`; an absolute URL is returned as it is.
    static func resolve(_ relative: String, against serviceRoot: String) -> String {
        if hasScheme(relative) { return encoded(relative) }
        if relative.hasPrefix("/") {
            // Host-relative: keep scheme and authority of the root.
            guard let schemeEnd = serviceRoot.utf8.firstRange(of: "://".utf8) else { return encoded(relative) }
            let afterScheme = serviceRoot.utf8[schemeEnd.upperBound...]
            let authorityEnd = afterScheme.firstIndex(of: UInt8(ascii: "/")) ?? serviceRoot.utf8.endIndex
            return String(serviceRoot[..<authorityEnd]) + encoded(relative)
        }
        let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        return root + encoded(relative)
    }

    /// Throws the misuse error unless `root` is an absolute URL, the one form a service root takes.
    /// Every entry point that takes a service root (the store options, the C API) checks with this.
    package static func checkServiceRoot(_ root: String) throws(ODataError) {
        guard hasScheme(root) else { throw ODataError(.misuse, "the service root must be an absolute URL, not '\(redactedURL(root))'") }
        // Refused where the root is given, not when it is first used: the engine speaks only HTTP
        // (libcurl would otherwise read `file://` or talk `gopher://`).
        guard origin(of: root) != nil else {
            throw ODataError(.misuse, "the service root must be an http or https URL, not '\(redactedURL(root))'")
        }
        // `user:password@` would be kept in the store file and shown wherever the root is.
        if let userInfo = userInfo(of: root), userInfo.contains(":") {
            throw ODataError(.misuse, "the service root '\(redactedURL(root))' carries a password: it would be kept in the store "
                             + "file; give the credentials as basic authentication instead (tool: --user with OFFLINE_ODATA_PASSWORD)")
        }
    }

    /// The `user[:password]` part of a URL's authority, if it has one.
    static func userInfo(of url: String) -> Substring? {
        guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return authority[..<at]
    }

    /// `reference` (a redirect's `Location`) resolved against the absolute URL `base` it answered:
    /// absolute, scheme-relative (`//host/path`), host-relative (`/path`) or path-relative.
    static func resolveReference(_ reference: String, against base: String) -> String {
        if hasScheme(reference) { return encoded(reference) }
        guard let schemeEnd = base.utf8.firstRange(of: "://".utf8) else { return encoded(reference) }
        if reference.hasPrefix("//") { return String(base[..<schemeEnd.lowerBound]) + ":" + encoded(reference) }
        let afterScheme = base.utf8[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? base.utf8.endIndex
        if reference.hasPrefix("/") { return String(base[..<authorityEnd]) + encoded(reference) }
        let path = base.utf8[authorityEnd...]
        let pathEnd = path.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? base.utf8.endIndex
        let directoryEnd = base.utf8[authorityEnd..<pathEnd].lastIndex(of: UInt8(ascii: "/")).map { base.utf8.index(after: $0) }
        guard let directoryEnd else { return String(base[..<authorityEnd]) + "/" + encoded(reference) }
        return String(base[..<directoryEnd]) + encoded(reference)
    }

    /// Where a URL points: scheme and host in lower case, and the port (80 or 443 when not written).
    struct Origin: Equatable, CustomStringConvertible {
        let scheme: String
        let host: String
        let port: Int
        var description: String { "\(scheme)://\(host):\(port)" }
    }

    /// The origin of the absolute http or https URL `url`; nil for another scheme or an authority
    /// the engine does not take apart with certainty (a backslash, a control character, a bad port).
    static func origin(of url: String) -> Origin? {
        guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return nil }
        let scheme = asciiLowercased(String(url[..<schemeEnd.lowerBound]))
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let afterScheme = url.utf8[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? url.utf8.endIndex
        var authority = Substring(url[schemeEnd.upperBound..<authorityEnd])
        guard authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { return nil }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var portText: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(portText),
                  number <= 65535 else { return nil }
            port = number
        }
        // A trailing dot names the same host.
        if host.hasSuffix(".") { host = host.dropLast() }
        return Origin(scheme: scheme, host: asciiLowercased(String(host)), port: port)
    }

    /// Throws unless the absolute URL `url` is an http or https URL on the origin (scheme, host and
    /// port) of `serviceRoot`: the engine follows links and redirects from the service only there,
    /// so a service cannot send the credentials, headers and cookies of its requests elsewhere.
    /// `what` names the link in the message (`the next link`), which quotes it without user-info.
    static func checkSameOrigin(_ url: String, as serviceRoot: String, what: String) throws(ODataError) {
        guard let target = origin(of: url) else {
            throw ODataError(.network, "\(what) '\(redactedURL(url))' is not an http or https URL the engine follows: refused")
        }
        guard let root = origin(of: serviceRoot), root == target else {
            throw ODataError(.network, "\(what) '\(redactedURL(url))' leaves the service's origin \(redactedURL(originText(serviceRoot))): refused")
        }
    }

    /// Whether `link` (a delta link a download stored) belongs to the service at `serviceRoot`: on
    /// its origin and under its path. A link of another service (the store's root changed, or a
    /// command used another) is not followed: the download is a full one instead.
    static func belongs(_ link: String, to serviceRoot: String) -> Bool {
        let absolute = resolve(link, against: serviceRoot)
        guard let linkOrigin = origin(of: absolute), linkOrigin == origin(of: serviceRoot) else { return false }
        // The paths: what follows the authority, up to the query.
        func path(_ url: String) -> Substring {
            var rest = Substring(url)
            if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") { rest = rest[colon...].dropFirst(3) }
            return rest.drop { $0 != "/" }.prefix { $0 != "?" && $0 != "#" }
        }
        let rootPath = path(serviceRoot)
        return path(absolute).hasPrefix(rootPath.hasSuffix("/") ? rootPath : rootPath + "/")
    }

    private static func originText(_ url: String) -> String {
        origin(of: url)?.description ?? url
    }

    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }
            && text[colon...].hasPrefix("://")
    }

    /// Percent-encodes the bytes a URL cannot carry as they are; existing `%XX` escapes stay.
    static func encoded(_ text: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isAllowed(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Unreserved and reserved characters of RFC 3986, and `%` (already encoded text), but not `+`:
    /// many servers decode a raw `+` in a query as a space, which breaks `+02:00` offsets.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~:/?#[]@!$&'()*,;=%".utf8.contains(byte)
        }
    }
}
