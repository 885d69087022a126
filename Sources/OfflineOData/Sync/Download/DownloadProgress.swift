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

    public init(definingRequest: String, pages: Int, entities: Int, expectedEntities: Int? = nil, isDelta: Bool) {
        self.definingRequest = definingRequest
        self.pages = pages
        self.entities = entities
        self.expectedEntities = expectedEntities
        self.isDelta = isDelta
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
}
