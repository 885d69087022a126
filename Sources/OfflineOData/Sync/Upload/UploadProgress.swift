/// Progress of an upload, reported after each request the service answered, and while a media
/// stream travels (a media `POST` or a stream's `PUT`: every MiB handed to the connection, with
/// ``sent`` unchanged and ``bytesSent`` growing; docs/MEDIA.md). Answering "stop" to such an
/// event stops the upload after that request, not during it.
public struct UploadProgress: Sendable, Equatable {
    /// Requests the service accepted so far.
    public var sent: Int
    /// Requests moved to the error archive so far (refused, or after a refused one on the same entity).
    public var archived: Int
    /// Requests in the queue when the upload started.
    public var total: Int
    /// Bytes of request bodies sent so far (``bytesReceived``: of answer bodies received), as
    /// libcurl counted them on the wire: the queued requests, `$batch` bodies, and the reads an
    /// upload makes (CSRF token, ETags, settling requests in doubt); headers not included.
    public var bytesSent: Int = 0
    public var bytesReceived: Int = 0
}

/// The outcome of an upload that ran to the end of the queue.
public struct UploadOutcome: Sendable, Equatable {
    /// Applied by the service (found applied after a lost answer included).
    public var sent: Int
    /// Moved to the error archive: refused, in conflict, or in doubt (needing a decision).
    public var archived: Int
    /// Of ``archived``, the requests in doubt that need the user's decision (``ArchiveKind/inDoubt``).
    public var inDoubt: Int = 0
    /// Set when the statistics or the sync log could not be written (the upload itself ran).
    public var recordingProblem: String?
    /// Requests that left the queue before sending because the queue's compaction made them
    /// unnecessary (merged into another request, or cancelled with their entity's create).
    public var compacted: Int = 0
    /// Local changes a conflict policy dropped (server wins), each recorded
    /// (``ConflictDetail/Outcome/discarded``) until the app clears the record.
    public var discarded: Int = 0
    /// Bytes of bodies the whole upload sent and received (see ``UploadProgress/bytesSent``).
    public var bytesSent: Int = 0
    public var bytesReceived: Int = 0

    public init(sent: Int, archived: Int, inDoubt: Int = 0) {
        self.sent = sent
        self.archived = archived
        self.inDoubt = inDoubt
    }
}

/// The note every stopped upload adds to its error: nothing was lost, the rest stays queued.
func uploadStopped(remaining: Int) -> String {
    "; the upload stopped and \(remaining) requests stay queued for a later upload"
}

/// The note of an upload stopped while requests were in flight: what happens to them next.
func uploadStoppedInDoubt(remaining: Int) -> String {
    "; the request stays queued, in doubt: the next upload checks whether the service applied it before sending it "
        + "again; the upload stopped and \(remaining) requests stay queued for a later upload"
}
