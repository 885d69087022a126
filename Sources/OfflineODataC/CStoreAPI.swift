import COfflineODataHeader
@_spi(Tool) import OfflineOData

// The store API from C: opening, routing, download and upload.

private struct CProgress: @unchecked Sendable {
    let function: ood_progress?
    let payload: UnsafeMutableRawPointer?

    /// Whether to stop: the callback answered non-zero (the rule of every surface, see
    /// `ODataStore+ProgressRule.swift`).
    func stops(_ done: Int, _ total: Int?) -> Bool {
        guard let function else { return false }
        return function(done, total ?? -1, payload) != 0
    }
}

/// The options behind `options`, checked.
private func storeOptions(_ function: String, _ options: OpaquePointer?) throws(ODataError) -> OptionsHandle {
    guard let options else { throw ODataError(.misuse, "\(function): options is NULL") }
    let handle = OptionsHandle.from(options)
    guard handle.options.path != nil || handle.options.serviceRoot != nil else {
        throw ODataError(.misuse, "\(function): the options name neither a store file (ood_options_set_path) nor a service root")
    }
    return handle
}

@_cdecl("ood_store_open_with")
public func cStoreOpenWith(_ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_store_open_with: out is NULL") }
    return bridge { () throws(ODataError) in
        let settings = try storeOptions("ood_store_open_with", options)
        let store = ODataStore.open(settings.options)
        do throws(ODataError) {
            try store.waitUntilOpen()
        } catch {
            store.close()
            throw error
        }
        out.pointee = StoreHandle(store: store, path: settings.options.path, uploadBatching: settings.uploadBatching).retainedPointer()
    }
}

@_cdecl("ood_store_open_async")
public func cStoreOpenAsync(_ options: OpaquePointer?, _ completion: ood_completion?, _ payload: UnsafeMutableRawPointer?,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_store_open_async: out is NULL") }
    return bridge { () throws(ODataError) in
        let settings = try storeOptions("ood_store_open_async", options)
        let store = ODataStore.open(settings.options)
        let callback = CCompletion(function: completion, payload: payload)
        store.start(.status) { result in callback.call(result.map { _ in nil }) }
        out.pointee = StoreHandle(store: store, path: settings.options.path, uploadBatching: settings.uploadBatching).retainedPointer()
    }
}

@_cdecl("ood_route")
public func cRoute(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                   _ isOnline: UnsafeMutablePointer<Int32>?,
                   _ reason: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    isOnline?.pointee = 0
    reason?.pointee = nil
    guard let isOnline else { return misuse("ood_route: is_online is NULL") }
    return bridge { () throws(ODataError) in
        let route = try askRoute("ood_route", store, method, url)
        isOnline.pointee = route.destination == .online ? 1 : 0
        if let reason {
            guard let copy = ownedCString(route.reason) else { throw ODataError(.internalError, "out of memory") }
            reason.pointee = copy
        }
    }
}

@_cdecl("ood_route_json")
public func cRouteJSON(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                       _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_route_json: json is NULL") }
    return bridge { () throws(ODataError) in try handOut(askRoute("ood_route_json", store, method, url).jsonText, to: json) }
}

/// The route of `method` on `url`: the one body of `ood_route` and `ood_route_json`.
private func askRoute(_ function: String, _ store: OpaquePointer?, _ method: UnsafePointer<CChar>?,
                      _ url: UnsafePointer<CChar>?) throws(ODataError) -> Route {
    let target = try requireAPIStore(function, store)
    let methodText = try text(function, "method", method)
    let urlText = try text(function, "url", url)
    return try target.performAndWait(.route(method: methodText, url: urlText))
}

@_cdecl("ood_download")
public func cDownload(_ store: OpaquePointer?, _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?) -> ood_status {
    bridge { () throws(ODataError) in try downloading("ood_download", store, subset: nil, full: false, progress, payload) }
}

@_cdecl("ood_download_with")
public func cDownloadWith(_ store: OpaquePointer?, _ subset: UnsafePointer<UnsafePointer<CChar>?>?, _ full: Int32,
                          _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?) -> ood_status {
    bridge { () throws(ODataError) in
        let names = try stringList("ood_download_with", "defining request names", subset)
        try downloading("ood_download_with", store, subset: names, full: full != 0, progress, payload)
    }
}

@_cdecl("ood_download_json")
public func cDownloadJSON(_ store: OpaquePointer?, _ subset: UnsafePointer<UnsafePointer<CChar>?>?, _ full: Int32,
                          _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?,
                          _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_download_json: json is NULL") }
    return bridge { () throws(ODataError) in
        let names = try stringList("ood_download_json", "defining request names", subset)
        let outcomes = try downloading("ood_download_json", store, subset: names, full: full != 0, progress, payload)
        try handOut(DownloadOutcome.jsonText(outcomes), to: json)
    }
}

@_cdecl("ood_download_flags")
public func cDownloadFlags(_ store: OpaquePointer?, _ subset: UnsafePointer<UnsafePointer<CChar>?>?, _ flags: Int32,
                           _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?,
                           _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let known = Int32(OOD_DOWNLOAD_FULL.rawValue | OOD_DOWNLOAD_NO_MODEL_CHECK.rawValue)
        guard flags & ~known == 0 else {
            throw ODataError(.misuse, "ood_download_flags: flags are OOD_DOWNLOAD_FULL and OOD_DOWNLOAD_NO_MODEL_CHECK, not \(flags)")
        }
        let names = try stringList("ood_download_flags", "defining request names", subset)
        let outcomes = try downloading("ood_download_flags", store, subset: names, full: flags & Int32(OOD_DOWNLOAD_FULL.rawValue) != 0,
                                       checksModel: flags & Int32(OOD_DOWNLOAD_NO_MODEL_CHECK.rawValue) == 0, progress, payload)
        if let json { try handOut(DownloadOutcome.jsonText(outcomes), to: json) }
    }
}

/// The one body of `ood_download`, `ood_download_with`, `ood_download_json` and
/// `ood_download_flags`: all defining requests or the named ones, with their delta links or
/// (`full`) whole, after the service model's check unless `checksModel` is false.
@discardableResult
private func downloading(_ function: String, _ store: OpaquePointer?, subset: [String]?, full: Bool, checksModel: Bool = true,
                         _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?) throws(ODataError) -> [DownloadOutcome] {
    let target = try requireServiceStore(function, store)
    let reporter = CProgress(function: progress, payload: payload)
    var options = DownloadOptions(subset: subset, full: full) { step in
        reporter.stops(step.entities, step.expectedEntities)
    }
    options.checksServiceModel = checksModel
    return try target.performAndWait(.download(options))
}

@_cdecl("ood_upload")
public func cUpload(_ store: OpaquePointer?, _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?,
                    _ sent: UnsafeMutablePointer<Int>?, _ archived: UnsafeMutablePointer<Int>?) -> ood_status {
    sent?.pointee = 0
    archived?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireServiceStore("ood_upload", store)
        let reporter = CProgress(function: progress, payload: payload)
        let outcome = try target.performAndWait(.upload(uploadOptions(of: store) { step in reporter.stops(step.sent, step.total) }))
        sent?.pointee = outcome.sent
        archived?.pointee = outcome.archived
    }
}

/// An upload's options on the handle `store`: its batching (ood_options_set_batch), and `progress`.
func uploadOptions(of store: OpaquePointer?, progress: (@Sendable (UploadProgress) -> Bool)? = nil) -> UploadOptions {
    let batching = store.map { StoreHandle.from($0).uploadBatching } ?? nil
    return UploadOptions(batch: batching != nil, batchSize: batching?.size ?? 100,
                         groupByTransaction: batching?.groupsByTransaction ?? false, progress: progress)
}

@_cdecl("ood_upload_preview")
public func cUploadPreview(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_upload_preview: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_upload_preview", store)
        // The same batching as ood_upload: the options' (ood_options_set_batch).
        let preview = try target.performAndWait(.previewUpload(uploadOptions(of: store)))
        try handOut(preview.jsonText, to: json)
    }
}
