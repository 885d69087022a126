import FoundationEssentials
import OfflineOData

// The store's times as `Date` values. The store keeps them as text (UTC ISO 8601 with
// milliseconds; an HTTP date for `firstSent`), which the C and Python surfaces show as they are;
// these read that text. Each is nil when the time is not there (or not readable).

extension QueuedRequest {
    /// When the local change was made (``createdAt``).
    public var createdDate: Date? { ODataDateText.isoDate(createdAt) }
    /// When an upload first sent it (``firstSent``), for services that take repeatable requests.
    public var firstSentDate: Date? { firstSent.flatMap(HTTPDateText.date(from:)) }
}

extension ArchivedRequest {
    /// When the service refused it (``failedAt``).
    public var failedDate: Date? { ODataDateText.isoDate(failedAt) }
}

extension DefiningRequest {
    /// When its last download finished (``lastDownload``); nil if it never did.
    public var lastDownloadDate: Date? { lastDownload.flatMap(ODataDateText.isoDate) }
}

extension StoreIndex {
    /// When the index was made (``createdAt``).
    public var createdDate: Date? { ODataDateText.isoDate(createdAt) }
}

/// Reads an HTTP date (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), the form the
/// `Repeatability-First-Sent` header and ``QueuedRequest/firstSent`` use.
enum HTTPDateText {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func date(from text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let monthIndex = months.firstIndex(of: String(parts[2])),
              parts[1].count == 2, parts[3].count == 4, parts[4].count == 8
        else { return nil }
        return ODataDateText.isoDate("\(parts[3])-\(monthIndex < 9 ? "0" : "")\(monthIndex + 1)-\(parts[1])T\(parts[4])Z")
    }
}
