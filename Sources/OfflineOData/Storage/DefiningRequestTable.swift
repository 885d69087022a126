/// A named OData read whose result the offline store holds, e.g.
/// `Agencies` = `TravelagencyCollection?$filter=country eq 'US'`.
public struct DefiningRequest: Sendable, Equatable {
    public var name: String
    /// Relative to the service root.
    public var url: String
    /// When its last download finished (UTC, ISO 8601), or nil if it never did.
    public var lastDownload: String?
    /// Where the next delta download starts, when the service offered one.
    public var deltaLink: String?
    /// Whether a download also fetches the streams of the media entities the request holds
    /// (SAP's `automaticallyRetrievesStreams`; docs/MEDIA.md). Off by default.
    public var retrievesStreams: Bool

    public init(name: String, url: String, lastDownload: String? = nil, deltaLink: String? = nil,
                retrievesStreams: Bool = false) {
        self.name = name
        self.url = url
        self.lastDownload = lastDownload
        self.deltaLink = deltaLink
        self.retrievesStreams = retrievesStreams
    }
}

/// The `ood_defining_request` table: the defining requests of a store, in the order given.
enum DefiningRequestTable {
    static func all(in db: SQLiteConnection) throws(ODataError) -> [DefiningRequest] {
        let statement = try db.prepare(
            "SELECT name, url, last_download, delta_link, streams FROM ood_defining_request ORDER BY position")
        try statement.bind([])
        var result: [DefiningRequest] = []
        while try statement.step() {
            result.append(DefiningRequest(
                name: statement.text(at: 0) ?? "", url: statement.text(at: 1) ?? "",
                lastDownload: statement.text(at: 2), deltaLink: statement.text(at: 3),
                retrievesStreams: statement.int(at: 4) != 0))
        }
        return result
    }

    /// Records a finished download: when, and the delta link to start the next one from (nil
    /// forgets the old one, so the next download is a full one).
    /// Forgets every delta link (the service root changed: they name the old service).
    static func dropDeltaLinks(in db: SQLiteConnection) throws(ODataError) {
        try db.execute("UPDATE ood_defining_request SET delta_link = NULL")
    }

    static func recordDownload(of name: String, at time: String, deltaLink: String?, in db: SQLiteConnection) throws(ODataError) {
        try db.prepare("UPDATE ood_defining_request SET last_download = ?1, delta_link = ?2 WHERE name = ?3")
            .run([.text(time), deltaLink.map(SQLValue.text) ?? .null, .text(name)])
    }

    /// Replaces the set of defining requests; those kept by name keep their download state.
    static func replace(with requests: [DefiningRequest], in db: SQLiteConnection) throws(ODataError) {
        var names = Set<String>()
        for request in requests {
            guard !request.name.isEmpty else { throw ODataError(.misuse, "a defining request needs a name") }
            guard !request.url.isEmpty else { throw ODataError(.misuse, "defining request '\(request.name)' has no URL") }
            guard names.insert(request.name).inserted else {
                throw ODataError(.misuse, "two defining requests are named '\(request.name)'")
            }
        }
        let existing = Dictionary(uniqueKeysWithValues: try all(in: db).map { ($0.name, $0) })
        try db.execute("DELETE FROM ood_defining_request")
        let insert = try db.prepare("""
            INSERT INTO ood_defining_request (name, url, position, last_download, delta_link, streams)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        for (position, request) in requests.enumerated() {
            // A changed URL means a different result: its download state starts over.
            let kept = existing[request.name].flatMap { $0.url == request.url ? $0 : nil }
            try insert.run([.text(request.name), .text(request.url), .integer(Int64(position)),
                            kept?.lastDownload.map(SQLValue.text) ?? .null, kept?.deltaLink.map(SQLValue.text) ?? .null,
                            .integer(request.retrievesStreams ? 1 : 0)])
        }
        // A download in progress of a request that is gone, or now reads another URL, is of no use.
        try DownloadResumeTable.discardStale(in: db)
    }
}
