import COfflineODataHeader
import Glibc
import OfflineOData

/// What an `ood_result *` points to: an answer with its body as a NUL-terminated copy.
final class ResultHandle {
    let status: Int32
    /// The body plus a NUL, so C can use it as a string.
    let body: UnsafeMutablePointer<CChar>
    let length: Int
    let contentType: UnsafeMutablePointer<CChar>?

    init(_ response: StoreResponse) {
        status = Int32(clamping: response.status)
        let count = response.body.count
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        for (index, byte) in response.body.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[count] = 0
        length = count
        body = copy
        contentType = strdup(response.contentType)
    }

    deinit {
        body.deallocate()
        free(contentType)
    }

    func retainedPointer() -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer) -> ResultHandle {
        Unmanaged<ResultHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

/// A C callback and its payload, carried to the thread that calls it.
private struct CCompletion: @unchecked Sendable {
    let function: ood_completion?
    let payload: UnsafeMutableRawPointer?

    /// Calls the callback with `outcome`, after setting this thread's error state to match.
    func call(_ outcome: Result<OpaquePointer?, ODataError>) {
        guard let function else { return }
        switch outcome {
        case .success(let result):
            function(succeed(), result, payload)
        case .failure(let error):
            function(fail(error), nil, payload)
        }
    }
}

private struct CProgress: @unchecked Sendable {
    let function: ood_progress?
    let payload: UnsafeMutableRawPointer?

    /// Whether to go on.
    func report(_ done: Int, _ total: Int?) -> Bool {
        guard let function else { return true }
        return function(done, total ?? -1, payload) == 0
    }
}

/// The options behind `options`, checked.
private func storeOptions(_ function: String, _ options: OpaquePointer?) throws(ODataError) -> ODataStore.Options {
    guard let options else { throw ODataError(.misuse, "\(function): options is NULL") }
    let copy = OptionsHandle.from(options).options
    guard copy.path != nil || copy.serviceRoot != nil else {
        throw ODataError(.misuse, "\(function): the options name neither a store file (ood_options_set_path) nor a service root")
    }
    return copy
}

/// The text of a C string argument, or the misuse error naming it.
private func text(_ function: String, _ name: String, _ pointer: UnsafePointer<CChar>?) throws(ODataError) -> String {
    guard let pointer else { throw ODataError(.misuse, "\(function): \(name) is NULL") }
    return String(cString: pointer)
}

@_cdecl("ood_store_open_with")
public func cStoreOpenWith(_ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_store_open_with: out is NULL") }
    return bridge { () throws(ODataError) in
        let settings = try storeOptions("ood_store_open_with", options)
        let store = ODataStore.open(settings)
        do throws(ODataError) {
            try store.waitUntilOpen()
        } catch {
            store.close()
            throw error
        }
        out.pointee = StoreHandle(store: store, path: settings.path).retainedPointer()
    }
}

@_cdecl("ood_store_open_async")
public func cStoreOpenAsync(_ options: OpaquePointer?, _ completion: ood_completion?, _ payload: UnsafeMutableRawPointer?,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_store_open_async: out is NULL") }
    return bridge { () throws(ODataError) in
        let settings = try storeOptions("ood_store_open_async", options)
        let store = ODataStore.open(settings)
        let callback = CCompletion(function: completion, payload: payload)
        store.status { result in callback.call(result.map { _ in nil }) }
        out.pointee = StoreHandle(store: store, path: settings.path).retainedPointer()
    }
}

@_cdecl("ood_request")
public func cRequest(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                     _ body: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_request: out is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_request", store)
        let request = ODataRequest(method: try text("ood_request", "method", method), url: try text("ood_request", "url", url),
                                   body: body.map { Array(String(cString: $0).utf8) })
        let response = try target.executeAndWait(request)
        out.pointee = ResultHandle(response).retainedPointer()
    }
}

@_cdecl("ood_request_async")
public func cRequestAsync(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                          _ body: UnsafePointer<CChar>?, _ completion: ood_completion?,
                          _ payload: UnsafeMutableRawPointer?) -> ood_status {
    bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_request_async", store)
        guard completion != nil else { throw ODataError(.misuse, "ood_request_async: completion is NULL") }
        let request = ODataRequest(method: try text("ood_request_async", "method", method),
                                   url: try text("ood_request_async", "url", url),
                                   body: body.map { Array(String(cString: $0).utf8) })
        let callback = CCompletion(function: completion, payload: payload)
        target.execute(request) { result in callback.call(result.map { ResultHandle($0).retainedPointer() }) }
    }
}

@_cdecl("ood_result_status")
public func cResultStatus(_ result: OpaquePointer?) -> Int32 {
    guard let result else { return 0 }
    return ResultHandle.from(result).status
}

@_cdecl("ood_result_body")
public func cResultBody(_ result: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let result else {
        length?.pointee = 0
        return UnsafePointer(staticCString(""))
    }
    let handle = ResultHandle.from(result)
    length?.pointee = handle.length
    return UnsafePointer(handle.body)
}

@_cdecl("ood_result_content_type")
public func cResultContentType(_ result: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let result, let type = ResultHandle.from(result).contentType else { return UnsafePointer(staticCString("")) }
    return UnsafePointer(type)
}

@_cdecl("ood_result_free")
public func cResultFree(_ result: OpaquePointer?) {
    guard let result else { return }
    Unmanaged<ResultHandle>.fromOpaque(UnsafeRawPointer(result)).release()
}

@_cdecl("ood_route")
public func cRoute(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                   _ isOnline: UnsafeMutablePointer<Int32>?,
                   _ reason: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    isOnline?.pointee = 0
    reason?.pointee = nil
    guard let isOnline else { return misuse("ood_route: is_online is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_route", store)
        let methodText = try text("ood_route", "method", method)
        let urlText = try text("ood_route", "url", url)
        let route = try target.waitFor { completion in target.route(method: methodText, url: urlText, completion: completion) }
        isOnline.pointee = route.destination == .online ? 1 : 0
        if let reason {
            guard let copy = ownedCString(route.reason) else { throw ODataError(.internalError, "out of memory") }
            reason.pointee = copy
        }
    }
}

@_cdecl("ood_download")
public func cDownload(_ store: OpaquePointer?, _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?) -> ood_status {
    bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_download", store)
        let reporter = CProgress(function: progress, payload: payload)
        _ = try target.waitFor { completion in
            target.download(progress: { step in reporter.report(step.entities, step.expectedEntities) }, completion: completion)
        }
    }
}

@_cdecl("ood_upload")
public func cUpload(_ store: OpaquePointer?, _ progress: ood_progress?, _ payload: UnsafeMutableRawPointer?,
                    _ sent: UnsafeMutablePointer<Int>?, _ archived: UnsafeMutablePointer<Int>?) -> ood_status {
    sent?.pointee = 0
    archived?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_upload", store)
        let reporter = CProgress(function: progress, payload: payload)
        let outcome = try target.waitFor { completion in
            target.upload(progress: { step in reporter.report(step.sent, step.total) }, completion: completion)
        }
        sent?.pointee = outcome.sent
        archived?.pointee = outcome.archived
    }
}
