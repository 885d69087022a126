import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

/// What an `ood_watcher *` points to: the engine's live query, stopped when the handle is stopped.
final class WatchHandle {
    let query: LiveQuery
    init(_ query: LiveQuery) { self.query = query }
}

/// A C watch callback and its payload, carried to the store's live-query thread.
private struct CWatchCallback: @unchecked Sendable {
    let function: ood_watch_callback
    let payload: UnsafeMutableRawPointer?

    /// An answer's body as bytes with its length (NUL-terminated as well, for text), or a failed
    /// read's status with its message.
    func deliver(_ answer: Result<StoreResponse, ODataError>) {
        switch answer {
        case .success(let response):
            var bytes = response.body
            bytes.append(0)
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress?.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    function(OOD_OK, $0, buffer.count - 1, payload)
                }
            }
        case .failure(let error):
            error.message.withCString { function(cStatus(error.code), $0, strlen($0), payload) }
        }
    }
}

@_cdecl("ood_watch")
public func cWatch(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ interval: Double, _ callback: ood_watch_callback?,
                   _ payload: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("ood_watch: out is NULL") }
    guard let callback else { return misuse("ood_watch: callback is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_watch", store)
        let path = try text("ood_watch", "url", url)
        let receiver = CWatchCallback(function: callback, payload: payload)
        let query = try target.watch(path, interval: interval < 0 ? ODataStore.defaultLiveQueryInterval : interval) { answer in
            receiver.deliver(answer)
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(WatchHandle(query)).toOpaque())
    }
}

@_cdecl("ood_watch_stop")
public func cWatchStop(_ watch: OpaquePointer?) {
    guard let watch else { return }
    let handle = Unmanaged<WatchHandle>.fromOpaque(UnsafeRawPointer(watch))
    handle.takeUnretainedValue().query.cancel()
    handle.release()
}

@_cdecl("ood_watch_counts")
public func cWatchCounts(_ watch: OpaquePointer?, _ runs: UnsafeMutablePointer<Int64>?,
                         _ deliveries: UnsafeMutablePointer<Int64>?) -> ood_status {
    runs?.pointee = 0
    deliveries?.pointee = 0
    guard let watch else { return misuse("ood_watch_counts: watch is NULL") }
    let query = Unmanaged<WatchHandle>.fromOpaque(UnsafeRawPointer(watch)).takeUnretainedValue().query
    runs?.pointee = Int64(query.runCount)
    deliveries?.pointee = Int64(query.deliveryCount)
    return succeed()
}
