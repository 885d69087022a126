/// Where a store is in its life. Requests never need to look: they are held while the store opens.
public enum StoreState: String, Sendable, Equatable {
    /// Creating or reopening the file, reading or fetching `$metadata`.
    case opening
    /// A download of defining requests runs (the first one of a new store, or one asked for).
    case downloading
    /// Ready; requests run as they come.
    case open
    /// An upload of the request queue runs.
    case uploading
    /// Closed, or opening failed: requests complete with an error.
    case closed
}

/// What a store tells its subscribers (``ODataStore/subscribe(_:)``).
///
/// Events arrive in the order they happened, on one thread of the store's (never on the thread
/// that caused them), so a subscriber may call into the store; blocking calls from there answer
/// ``ODataError/Code/busy``.
public enum StoreEvent: Sendable, Equatable {
    case stateChanged(StoreState)
    /// Opening failed; every held request completes with this error.
    case openFailed(ODataError)
    /// After each page of a download.
    case downloadProgress(DownloadProgress)
    /// A download ended (`nil`) or failed (the error).
    case downloadFinished(ODataError?)
    /// The first download of a new store is in: a user interface can enable itself. Sent once per
    /// store file, when its first download (run while the store opens) succeeds; if it fails,
    /// opening fails, and the next open tries again.
    case firstDownloadComplete
    /// After each request an upload sent or archived.
    case uploadProgress(UploadProgress)
    /// An upload ended (`nil`) or stopped (the error).
    case uploadFinished(ODataError?)
    /// Entities of these sets changed (local writes, downloads, upload answers). Coalesced: see
    /// ``ODataStore/Options/changeEventInterval``.
    case entitySetsChanged(Set<String>)
    /// The service refused a queued request during an upload; it is in the error archive now.
    case requestFailed(ArchivedRequest)
    /// The store file was not closed cleanly (its last user died with it open) and opening ran
    /// SQLite's quick check on it; these are its findings, empty when sound (a damaged store
    /// does not open: ``openFailed`` lists them). Posted before anyone subscribed (the app
    /// subscribes after an open it did not wait for), it goes to the first subscriber.
    case uncleanShutdownChecked([StoreFinding])
    /// A download (or an explicit check) found that the service's `$metadata` differs from the
    /// store's model. When every difference was compatible the download migrated the store in
    /// place and went on (``ServiceModelCheck/migrated``); otherwise the store stays on its model
    /// until the app chooses a way (``StoreOperation/adoptServiceModel(_:)``).
    case serviceModelChanged(ServiceModelCheck)
}
