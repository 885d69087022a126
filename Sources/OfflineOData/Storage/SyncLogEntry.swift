/// One row of the store's sync log: a download of a defining request, an upload, or a request the
/// service refused. The log is bounded (``SyncLogEntry/capacity`` rows, the oldest dropped first).
public struct SyncLogEntry: Sendable, Equatable {
    /// The store keeps at most this many rows.
    public static let capacity = 1000

    /// Increasing: a later entry has a larger id.
    public var id: Int64
    /// When it happened (UTC, ISO 8601 with milliseconds).
    public var at: String
    public var kind: Kind
    /// The defining request of a download.
    public var definingRequest: String?
    /// The queued request's id, for a refusal.
    public var requestID: Int64?
    /// Entities downloaded, or requests applied by an upload.
    public var entities: Int?
    /// Bytes received by a download, or of the bodies an upload sent and the service applied.
    public var bytes: Int?
    /// What remains, where it is known: entities the service announced (`@odata.count`) and the
    /// download did not get, requests left queued after an upload.
    public var remaining: Int?
    public var durationMilliseconds: Int?
    public var outcome: SyncOutcome
    /// The error or the service's message; nil after a success.
    public var message: String?

    public enum Kind: String, Sendable, Equatable {
        case download, upload, refusal
    }

    public init(id: Int64 = 0, at: String, kind: Kind, definingRequest: String? = nil, requestID: Int64? = nil,
                entities: Int? = nil, bytes: Int? = nil, remaining: Int? = nil, durationMilliseconds: Int? = nil,
                outcome: SyncOutcome, message: String? = nil) {
        self.id = id
        self.at = at
        self.kind = kind
        self.definingRequest = definingRequest
        self.requestID = requestID
        self.entities = entities
        self.bytes = bytes
        self.remaining = remaining
        self.durationMilliseconds = durationMilliseconds
        self.outcome = outcome
        self.message = message
    }
}
