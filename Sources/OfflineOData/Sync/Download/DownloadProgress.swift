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

    public init(definingRequest: String, pages: Int, entities: Int, expectedEntities: Int? = nil, isDelta: Bool, bytes: Int = 0) {
        self.definingRequest = definingRequest
        self.pages = pages
        self.entities = entities
        self.expectedEntities = expectedEntities
        self.isDelta = isDelta
        self.bytes = bytes
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
}
