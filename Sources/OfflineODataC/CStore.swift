import COfflineODataHeader
@_spi(Tool) import OfflineOData

/// `ood_options_set_batch`: the queue goes in `$batch` requests of at most `size` requests.
struct UploadBatching {
    var size: Int
    /// Requests with the same transaction id go in one change set.
    var groupsByTransaction: Bool
}

/// What an `ood_store *` points to: a retained box around the engine's store.
///
/// There is one kind of handle. `ood_store_open_with` and `ood_store_open_async` open the store as
/// their options say; `ood_store_open` opens it as its file describes it (`CStoreFromFile.swift`).
/// Only a file that cannot serve requests (a new one, with no service model yet) leaves the handle
/// holding the bare file (`file`), for the file-level questions; its requests fail saying why.
final class StoreHandle {
    let file: StoreFile?
    let store: ODataStore?
    let path: String?
    /// From the options: how `ood_upload` sends the queue.
    let uploadBatching: UploadBatching?
    /// Why a handle holding the bare file serves no requests: the error its store opened with.
    let requestsRefusal: ODataError?
    /// A store opened from its file alone (no options to name a service) whose file keeps no
    /// service root: its downloads and uploads have nowhere to go.
    let lacksServiceRoot: Bool

    init(file: StoreFile, requestsRefusal: ODataError) {
        self.file = file
        store = nil
        path = file.path
        uploadBatching = nil
        self.requestsRefusal = requestsRefusal
        lacksServiceRoot = false
    }

    init(store: ODataStore, path: String?, uploadBatching: UploadBatching?, lacksServiceRoot: Bool = false) {
        file = nil
        self.store = store
        self.path = path
        self.uploadBatching = uploadBatching
        requestsRefusal = nil
        self.lacksServiceRoot = lacksServiceRoot
    }

    /// The store API behind the handle, or the error of a handle holding the bare file.
    func requireStore(_ function: String) throws(ODataError) -> ODataStore {
        guard let store else {
            let reason = requestsRefusal?.message ?? "it did not open"
            throw ODataError(requestsRefusal?.code ?? .misuse,
                             "\(function): the store file '\(path ?? "")' serves file-level questions only (\(reason)): open it "
                             + "with options giving its $metadata or a service root (ood_store_open_with)")
        }
        return store
    }

    /// The store API behind the handle, for a function that talks to the service (download,
    /// upload, re-download): a store opened from a file that keeps no service root fails here,
    /// naming what is missing, rather than deep in the engine.
    func requireService(_ function: String) throws(ODataError) -> ODataStore {
        let target = try requireStore(function)
        if lacksServiceRoot {
            throw ODataError(.misuse, "\(function): the store file '\(path ?? "")' keeps no service root, so there is no service "
                             + "to talk to: open it with options giving one (ood_store_open_with, ood_options_set_service_root)")
        }
        return target
    }

    /// The format version of the handle's file.
    func formatVersion() throws(ODataError) -> Int {
        if let file { return try file.formatVersion() }
        guard let path else { throw ODataError(.misuse, "the store works online only: it has no store file") }
        let opened = try StoreFile(path: path, acceptsEmptyFile: false, key: store?.key)
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
        out.pointee = try StoreHandle.opening(file: String(cString: path)).retainedPointer()
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
