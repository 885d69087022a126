import COfflineODataHeader
@_spi(Tool) import OfflineOData

// Encryption at rest (docs/ENCRYPTION.md): the key of the options, and rekey.

@_cdecl("ood_options_set_key")
public func cOptionsSetKey(_ options: OpaquePointer?, _ key: UnsafePointer<UInt8>?, _ length: Int) -> ood_status {
    guard let options else { return misuse("ood_options_set_key: options is NULL") }
    guard let key else {
        return bridge { () throws(ODataError) in OptionsHandle.from(options).options.key = nil }
    }
    guard length == 32 else {
        return fail(ODataError(.key, "ood_options_set_key: a raw store key has 32 bytes (256 bits), not \(length)"))
    }
    let bytes = Array(UnsafeBufferPointer(start: key, count: 32))
    return bridge { () throws(ODataError) in OptionsHandle.from(options).options.key = .raw(bytes) }
}

@_cdecl("ood_options_set_passphrase")
public func cOptionsSetPassphrase(_ options: OpaquePointer?, _ passphrase: UnsafePointer<CChar>?) -> ood_status {
    guard let options else { return misuse("ood_options_set_passphrase: options is NULL") }
    guard let passphrase else {
        return bridge { () throws(ODataError) in OptionsHandle.from(options).options.key = nil }
    }
    let text = String(cString: passphrase)
    guard !text.isEmpty else { return fail(ODataError(.key, "ood_options_set_passphrase: the passphrase is empty")) }
    return bridge { () throws(ODataError) in OptionsHandle.from(options).options.key = .passphrase(text) }
}

@_cdecl("ood_store_rekey")
public func cStoreRekey(_ path: UnsafePointer<CChar>?, _ from: OpaquePointer?, _ to: OpaquePointer?) -> ood_status {
    guard let path else { return misuse("ood_store_rekey: path is NULL") }
    let oldKey = from.map { OptionsHandle.from($0).options.key } ?? nil
    let newKey = to.map { OptionsHandle.from($0).options.key } ?? nil
    let text = String(cString: path)
    return bridge { () throws(ODataError) in try ODataStore.rekey(path: text, from: oldKey, to: newKey) }
}

@_cdecl("ood_store_open_keyed")
public func cStoreOpenKeyed(_ path: UnsafePointer<CChar>?, _ key: OpaquePointer?,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let path else { return misuse("ood_store_open_keyed: path is NULL") }
    guard let out else { return misuse("ood_store_open_keyed: out is NULL") }
    let storeKey = key.map { OptionsHandle.from($0).options.key } ?? nil
    return bridge { () throws(ODataError) in
        out.pointee = try StoreHandle.opening(file: String(cString: path), key: storeKey).retainedPointer()
    }
}

@_cdecl("ood_rekey")
public func cRekey(_ store: OpaquePointer?, _ to: OpaquePointer?) -> ood_status {
    let newKey = to.map { OptionsHandle.from($0).options.key } ?? nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_rekey", store)
        try target.performAndWait(.rekey(to: newKey))
    }
}
