import COfflineODataHeader
import Glibc
import OfflineOData

/// What an `ood_subscription *` points to: the engine's subscription, cancelled when freed.
final class SubscriptionHandle {
    let subscription: StoreSubscription
    init(_ subscription: StoreSubscription) { self.subscription = subscription }
}

/// A C event callback and its payload, carried to the store's event thread.
private struct CEventCallback: @unchecked Sendable {
    let function: ood_event_callback
    let payload: UnsafeMutableRawPointer?

    func deliver(_ event: StoreEvent) {
        let details = event.jsonText
        details.withCString { function(event.kindNumber, $0, payload) }
    }
}

/// The store-API store behind a handle, or the misuse error.
func requireAPIStore(_ function: String, _ store: OpaquePointer?) throws(ODataError) -> ODataStore {
    guard let store else { throw ODataError(.misuse, "\(function): store is NULL") }
    return try StoreHandle.from(store).requireStore(function)
}

/// Hands `text` to C as an owned string through `out`.
func handOut(_ text: String, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) throws(ODataError) {
    guard let copy = ownedCString(text) else { throw ODataError(.internalError, "out of memory") }
    out.pointee = copy
}

@_cdecl("ood_subscribe")
public func cSubscribe(_ store: OpaquePointer?, _ callback: ood_event_callback?, _ payload: UnsafeMutableRawPointer?,
                       _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_subscribe: out is NULL") }
    guard let callback else { return misuse("ood_subscribe: callback is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_subscribe", store)
        let receiver = CEventCallback(function: callback, payload: payload)
        let subscription = target.subscribe { event in receiver.deliver(event) }
        out.pointee = OpaquePointer(Unmanaged.passRetained(SubscriptionHandle(subscription)).toOpaque())
    }
}

@_cdecl("ood_subscription_free")
public func cSubscriptionFree(_ subscription: OpaquePointer?) {
    guard let subscription else { return }
    let handle = Unmanaged<SubscriptionHandle>.fromOpaque(UnsafeRawPointer(subscription))
    handle.takeUnretainedValue().subscription.cancel()
    handle.release()
}

@_cdecl("ood_explain")
public func cExplain(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                     _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_explain: json is NULL") }
    guard let url else { return misuse("ood_explain: url is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_explain", store)
        let text = String(cString: url)
        let explanation = try target.waitFor { completion in target.explain(url: text, completion: completion) }
        try handOut(explanation.jsonText, to: json)
    }
}

@_cdecl("ood_store_status")
public func cStoreStatus(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_status: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_status", store)
        try handOut(try target.waitFor { completion in target.status(completion: completion) }.jsonText, to: json)
    }
}

@_cdecl("ood_error_archive")
public func cErrorArchive(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_error_archive: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_error_archive", store)
        let archive = try target.waitFor { completion in target.errorArchive(completion: completion) }
        try handOut(ArchivedRequest.jsonText(archive), to: json)
    }
}

@_cdecl("ood_error_archive_delete")
public func cErrorArchiveDelete(_ store: OpaquePointer?, _ id: Int64, _ deleted: UnsafeMutablePointer<Int>?) -> ood_status {
    deleted?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_error_archive_delete", store)
        let count = try target.waitFor { completion in
            target.deleteArchivedRequests(id: id < 0 ? nil : id, completion: completion)
        }
        deleted?.pointee = count
    }
}

@_cdecl("ood_request_queue")
public func cRequestQueue(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_request_queue: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_request_queue", store)
        let queue = try target.waitFor { completion in target.requestQueue(completion: completion) }
        try handOut(QueuedRequest.jsonText(queue), to: json)
    }
}
