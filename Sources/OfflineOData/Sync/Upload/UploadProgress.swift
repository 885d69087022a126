/// Progress of an upload, reported after each request the service answered.
public struct UploadProgress: Sendable, Equatable {
    /// Requests the service accepted so far.
    public var sent: Int
    /// Requests moved to the error archive so far (refused, or after a refused one on the same entity).
    public var archived: Int
    /// Requests in the queue when the upload started.
    public var total: Int
}

/// The outcome of an upload that ran to the end of the queue.
public struct UploadOutcome: Sendable, Equatable {
    public var sent: Int
    public var archived: Int
}

/// The note every stopped upload adds to its error: nothing was lost, the rest stays queued.
func uploadStopped(remaining: Int) -> String {
    "; the upload stopped and \(remaining) requests stay queued for a later upload"
}
