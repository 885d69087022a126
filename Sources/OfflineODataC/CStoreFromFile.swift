@_spi(Tool) import OfflineOData

// `ood_store_open`: a store opened from its file alone.

extension StoreHandle {
    /// The store at `path` as its file describes it: its saved `$metadata`, defining requests,
    /// indexes and service root (if the file keeps one), so every function works on the handle.
    /// Opening touches no service: a defining request never downloaded stays so until
    /// `ood_download`. A file that cannot open as a store (a new one, made here, has no model yet)
    /// is kept bare for the file-level questions, its requests failing with the reason; a path
    /// that is no store file at all fails as it always did (not a store, cannot open).
    /// With `key`, the file is an encrypted one opened with it (a new one is made encrypted).
    static func opening(file path: String, key: StoreKey? = nil) throws(ODataError) -> StoreHandle {
        var options = ODataStore.Options(path: path)
        options.downloadsOnFirstOpen = false
        options.key = key
        let store = ODataStore.open(options)
        do throws(ODataError) {
            let status = try store.waitUntilOpen()
            return StoreHandle(store: store, path: path, uploadBatching: nil, lacksServiceRoot: status.serviceRoot == nil)
        } catch {
            store.close()
            return StoreHandle(file: try StoreFile(path: path, acceptsEmptyFile: false, key: key), requestsRefusal: error)
        }
    }
}
