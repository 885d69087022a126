import COfflineODataHeader
import OfflineOData

/// `ood_options_set_batch`: the queue goes in `$batch` requests of at most `size` requests.
struct UploadBatching {
    var size: Int
    /// Requests with the same transaction id go in one change set.
    var groupsByTransaction: Bool
}

/// What an `ood_store *` points to: a retained box around the engine's store.
///
/// `ood_store_open` makes a file-level handle (`file`); `ood_store_open_with` and
/// `ood_store_open_async` make a store-API handle (`store`, with the path it was given).
final class StoreHandle {
    let file: StoreFile?
    let store: ODataStore?
    let path: String?
    /// From the options: how `ood_upload` sends the queue.
    let uploadBatching: UploadBatching?

    init(file: StoreFile) {
        self.file = file
        store = nil
        path = file.path
        uploadBatching = nil
    }

    init(store: ODataStore, path: String?, uploadBatching: UploadBatching?) {
        file = nil
        self.store = store
        self.path = path
        self.uploadBatching = uploadBatching
    }

    /// The store API behind the handle, or the misuse error for a file-level handle.
    func requireStore(_ function: String) throws(ODataError) -> ODataStore {
        guard let store else {
            throw ODataError(.misuse, "\(function): the store was opened with ood_store_open, which serves file-level "
                             + "questions only; open it with ood_store_open_with for requests")
        }
        return store
    }

    /// The format version of the handle's file.
    func formatVersion() throws(ODataError) -> Int {
        if let file { return try file.formatVersion() }
        guard let path else { throw ODataError(.misuse, "the store works online only: it has no store file") }
        let opened = try StoreFile(path: path)
        defer { opened.close() }
        return try opened.formatVersion()
    }

    func close() {
        file?.close()
        store?.close()
    }

    /// The handle as the C caller holds it (+1 retained; released by `ood_store_close`).
    func retainedPointer() -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// The handle behind a C pointer, not retained again.
    static func from(_ pointer: OpaquePointer) -> StoreHandle {
        Unmanaged<StoreHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

@_cdecl("ood_store_open")
public func cStoreOpen(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let path else { return misuse("ood_store_open: path is NULL") }
    guard let out else { return misuse("ood_store_open: out is NULL") }
    return bridge { () throws(ODataError) in
        let file = try StoreFile(path: String(cString: path))
        out.pointee = StoreHandle(file: file).retainedPointer()
    }
}

@_cdecl("ood_store_close")
public func cStoreClose(_ store: OpaquePointer?) -> ood_status {
    guard let store else { return succeed() }
    let handle = Unmanaged<StoreHandle>.fromOpaque(UnsafeRawPointer(store))
    handle.takeUnretainedValue().close()
    handle.release()
    return succeed()
}

@_cdecl("ood_store_format_version")
public func cStoreFormatVersion(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> ood_status {
    out?.pointee = 0
    guard let store else { return misuse("ood_store_format_version: store is NULL") }
    guard let out else { return misuse("ood_store_format_version: out is NULL") }
    return bridge { () throws(ODataError) in
        out.pointee = Int32(clamping: try StoreHandle.from(store).formatVersion())
    }
}

@_cdecl("ood_store_path")
public func cStorePath(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    out?.pointee = nil
    guard let store else { return misuse("ood_store_path: store is NULL") }
    guard let out else { return misuse("ood_store_path: out is NULL") }
    return bridge { () throws(ODataError) in
        guard let path = StoreHandle.from(store).path else {
            throw ODataError(.misuse, "ood_store_path: the store works online only: it has no store file")
        }
        guard let copy = ownedCString(path) else { throw ODataError(.internalError, "out of memory") }
        out.pointee = copy
    }
}
