/// Whether opening an ``ODataStore`` may make its store file (``ODataStore/Options/creation``).
public enum StoreFileCreation: Sendable {
    /// Opens the store at `path`, or makes one there when there is none, from the `$metadata`
    /// document given or fetched (the default).
    case openOrCreate
    /// Opens only a store that is there: a missing path fails with ``ODataError/Code/cannotOpen``
    /// and a file without a service model with ``ODataError/Code/notAStore``, and nothing is made
    /// (a mistyped path is not silently a new, empty store).
    case openExisting
    /// Makes a new store from ``ODataStore/Options/metadata`` only: a file that holds a store
    /// already fails with ``ODataError/Code/misuse``.
    case createNew
}
