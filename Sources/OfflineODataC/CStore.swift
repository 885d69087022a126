import COfflineODataHeader
import OfflineOData

/// What an `ood_store *` points to: a retained box around the engine's store.
final class StoreHandle {
    let file: StoreFile
    init(file: StoreFile) { self.file = file }

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
    handle.takeUnretainedValue().file.close()
    handle.release()
    return succeed()
}

@_cdecl("ood_store_format_version")
public func cStoreFormatVersion(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> ood_status {
    out?.pointee = 0
    guard let store else { return misuse("ood_store_format_version: store is NULL") }
    guard let out else { return misuse("ood_store_format_version: out is NULL") }
    return bridge { () throws(ODataError) in
        out.pointee = Int32(clamping: try StoreHandle.from(store).file.formatVersion())
    }
}

@_cdecl("ood_store_path")
public func cStorePath(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    out?.pointee = nil
    guard let store else { return misuse("ood_store_path: store is NULL") }
    guard let out else { return misuse("ood_store_path: out is NULL") }
    return bridge { () throws(ODataError) in
        guard let copy = ownedCString(StoreHandle.from(store).file.path) else {
            throw ODataError(.internalError, "out of memory")
        }
        out.pointee = copy
    }
}
