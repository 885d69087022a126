import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

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
