import COfflineODataHeader
@_spi(Tool) import OfflineOData

// A device that changes hands (docs/SHARED-DEVICE.md): the user a store is opened for, the
// hand-over to another user, and who holds a closed store.

@_cdecl("ood_options_set_user")
public func cOptionsSetUser(_ options: OpaquePointer?, _ user: UnsafePointer<CChar>?) -> ood_status {
    guard let options else { return misuse("ood_options_set_user: options is NULL") }
    let name = user.map { String(cString: $0) }
    return bridge { () throws(ODataError) in OptionsHandle.from(options).options.user = name }
}

@_cdecl("ood_store_hand_over")
public func cStoreHandOver(_ path: UnsafePointer<CChar>?, _ previous: OpaquePointer?, _ newUser: UnsafePointer<CChar>?,
                           _ next: OpaquePointer?, _ choice: UnsafePointer<CChar>?, _ keptPath: UnsafePointer<CChar>?,
                           _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let file = try text("ood_store_hand_over", "path", path)
        let user = try text("ood_store_hand_over", "new_user", newUser)
        let previousOptions = previous.map { OptionsHandle.from($0).options }
        let handOverChoice: HandOverChoice
        switch try text("ood_store_hand_over", "choice", choice) {
        case "upload-first": handOverChoice = .uploadFirst(credentials: previousOptions?.http ?? HTTPOptions())
        case "discard": handOverChoice = .discard
        case "keep-apart": handOverChoice = .keepApart(path: keptPath.map { String(cString: $0) })
        case let other:
            throw ODataError(.misuse, "ood_store_hand_over: choice '\(other)' is not upload-first, discard or keep-apart")
        }
        let outcome = try ODataStore.handOver(path: file, key: previousOptions?.key, to: user,
                                              newKey: next.map { OptionsHandle.from($0).options.key } ?? nil,
                                              choice: handOverChoice)
        if let json { try handOut(outcome.jsonText, to: json) }
    }
}

@_cdecl("ood_store_user")
public func cStoreUser(_ path: UnsafePointer<CChar>?, _ key: OpaquePointer?,
                       _ user: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    user?.pointee = nil
    guard let user else { return misuse("ood_store_user: user is NULL") }
    return bridge { () throws(ODataError) in
        let file = try text("ood_store_user", "path", path)
        if let holder = try ODataStore.user(ofStoreAt: file, key: key.map { OptionsHandle.from($0).options.key } ?? nil) {
            try handOut(holder, to: user)
        }
    }
}
