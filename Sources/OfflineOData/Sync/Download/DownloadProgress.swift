/// Progress of the download of one defining request, reported after each page.
public struct DownloadProgress: Sendable, Equatable {
    public var definingRequest: String
    public var pages: Int
    /// Entities received so far for this defining request, expanded ones included.
    public var entities: Int
    /// The total the service announced, when it did.
    public var expectedEntities: Int?
    /// Whether this is a delta download (changes since the last one) or a full one.
    public var isDelta: Bool
    /// Bytes of the pages' bodies received so far, as the service sent them.
    public var bytes: Int = 0
    /// The page this download resumed at, when an earlier one was interrupted after storing the
    /// pages before it (`pages` and `entities` count those too); nil when it started at the first.
    public var resumedAtPage: Int?

    public init(definingRequest: String, pages: Int, entities: Int, expectedEntities: Int? = nil, isDelta: Bool, bytes: Int = 0,
                resumedAtPage: Int? = nil) {
        self.definingRequest = definingRequest
        self.pages = pages
        self.entities = entities
        self.expectedEntities = expectedEntities
        self.isDelta = isDelta
        self.bytes = bytes
        self.resumedAtPage = resumedAtPage
    }
}

/// The outcome of downloading one defining request.
public struct DownloadOutcome: Sendable, Equatable {
    public var definingRequest: String
    public var pages: Int
    public var entities: Int
    public var isDelta: Bool
    /// The delta link to keep for next time, if the service gave one.
    public var deltaLink: String?
    /// Bytes of the pages' bodies, as received.
    public var bytes: Int = 0
    /// The total the service announced (`@odata.count`, V2 `__count`), when it did.
    public var expectedEntities: Int?
    /// Set when the statistics or the sync log could not be written (the download itself succeeded).
    public var recordingProblem: String?
    /// The page this download resumed at (see ``DownloadProgress/resumedAtPage``), or nil.
    public var resumedAtPage: Int? = nil
    /// The pages fetched by this download: `pages` less those an interrupted one had stored.
    public var fetchedPages: Int = 0
}
