/// Builds the absolute URLs the engine sends: a store's relative URLs against its service root,
/// and the links services return (`@odata.nextLink` may be relative), percent-encoding what a URL
/// may not contain (the spaces and quotes of `$filter=country eq 'US'`).
public enum ServiceURL {
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
    public static func checkServiceRoot(_ root: String) throws(ODataError) {
        guard hasScheme(root) else { throw ODataError(.misuse, "the service root must be an absolute URL, not '\(redactedURL(root))'") }
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
