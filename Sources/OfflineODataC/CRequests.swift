import COfflineODataHeader
@_spi(Tool) import OfflineOData

// OData requests from C: blocking (`ood_request`), with a completion (`ood_request_async`), with
// extra headers and a handle to cancel (`ood_request_with_headers`, `ood_request_start`), as
// part of a transaction of the upload (`ood_request_in_transaction`), kept out of the queue's
// compaction (`ood_request_unmerged`), and one page of a read at a
// time (`ood_request_page`).

/// What an `ood_call *` points to: an asynchronous request in flight, so C can cancel it.
final class CallHandle {
    let request: RequestHandle
    init(_ request: RequestHandle) { self.request = request }

    static func from(_ pointer: OpaquePointer) -> CallHandle {
        Unmanaged<CallHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

/// The headers of a NULL-terminated array of `"Name: value"` strings (NULL for none).
private func headers(_ function: String, _ list: UnsafePointer<UnsafePointer<CChar>?>?) throws(ODataError) -> [HTTPHeader] {
    var result: [HTTPHeader] = []
    for line in try stringList(function, "headers", list) ?? [] {
        // A CR or LF would let the caller's value start a header (or a request) of its own.
        guard !line.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }),
              let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw ODataError(.misuse, "\(function): headers[\(result.count)] '\(line)' is not one line 'Name: value'")
        }
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        result.append(HTTPHeader(String(line[..<colon]), String(value)))
    }
    return result
}

/// The request the C arguments describe, checked.
private func request(_ function: String, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                     _ body: UnsafePointer<CChar>?, _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                     transactionID: String? = nil, mergeable: Bool = true) throws(ODataError) -> ODataRequest {
    ODataRequest(method: try text(function, "method", method), url: try text(function, "url", url),
                 body: body.map { Array(String(cString: $0).utf8) }, headers: try headers(function, headerList),
                 transactionID: transactionID, mergeable: mergeable)
}

/// Runs a request and waits: the one body of `ood_request`, `ood_request_with_headers` and
/// `ood_request_in_transaction`.
private func runRequest(_ function: String, _ store: OpaquePointer?, _ method: UnsafePointer<CChar>?,
                        _ url: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?,
                        _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                        _ out: UnsafeMutablePointer<OpaquePointer?>?,
                        transactionID: UnsafePointer<CChar>? = nil, mergeable: Bool = true) -> ood_status {
    out?.pointee = nil
    guard let out else { return misuse("\(function): out is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        var transaction: String?
        if let transactionID {
            transaction = String(cString: transactionID)
            guard transaction?.isEmpty == false else { throw ODataError(.misuse, "\(function): transaction_id is empty") }
        }
        let response = try target.executeAndWait(try request(function, method, url, body, headerList, transactionID: transaction,
                                                                 mergeable: mergeable))
        out.pointee = ResultHandle(response).retainedPointer()
    }
}

/// Starts a request: the one body of `ood_request_async` and `ood_request_start`.
private func startRequest(_ function: String, _ store: OpaquePointer?, _ method: UnsafePointer<CChar>?,
                          _ url: UnsafePointer<CChar>?, _ body: UnsafePointer<CChar>?,
                          _ headerList: UnsafePointer<UnsafePointer<CChar>?>?, _ completion: ood_completion?,
                          _ payload: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    out?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        guard completion != nil else { throw ODataError(.misuse, "\(function): completion is NULL") }
        let callback = CCompletion(function: completion, payload: payload)
        let handle = target.start(.request(try request(function, method, url, body, headerList))) { result in
            callback.call(result.map { ResultHandle($0).retainedPointer() })
        }
        out?.pointee = OpaquePointer(Unmanaged.passRetained(CallHandle(handle)).toOpaque())
    }
}

@_cdecl("ood_request")
public func cRequest(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                     _ body: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    runRequest("ood_request", store, method, url, body, nil, out)
}

@_cdecl("ood_request_with_headers")
public func cRequestWithHeaders(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                                _ body: UnsafePointer<CChar>?, _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    runRequest("ood_request_with_headers", store, method, url, body, headerList, out)
}

@_cdecl("ood_request_in_transaction")
public func cRequestInTransaction(_ store: OpaquePointer?, _ transactionID: UnsafePointer<CChar>?,
                                  _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                                  _ body: UnsafePointer<CChar>?, _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                                  _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    guard transactionID != nil else {
        out?.pointee = nil
        return misuse("ood_request_in_transaction: transaction_id is NULL")
    }
    return runRequest("ood_request_in_transaction", store, method, url, body, headerList, out, transactionID: transactionID)
}

@_cdecl("ood_request_unmerged")
public func cRequestUnmerged(_ store: OpaquePointer?, _ transactionID: UnsafePointer<CChar>?,
                             _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                             _ body: UnsafePointer<CChar>?, _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    runRequest("ood_request_unmerged", store, method, url, body, headerList, out, transactionID: transactionID, mergeable: false)
}

@_cdecl("ood_request_page")
public func cRequestPage(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                         _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                         _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    let function = "ood_request_page"
    out?.pointee = nil
    guard let out else { return misuse("\(function): out is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        let read = ODataRequest(method: "GET", url: try text(function, "url", url), headers: try headers(function, headerList),
                                followsNextLinks: false)
        out.pointee = ResultHandle(try target.executeAndWait(read)).retainedPointer()
    }
}

@_cdecl("ood_request_async")
public func cRequestAsync(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                          _ body: UnsafePointer<CChar>?, _ completion: ood_completion?,
                          _ payload: UnsafeMutableRawPointer?) -> ood_status {
    startRequest("ood_request_async", store, method, url, body, nil, completion, payload, nil)
}

@_cdecl("ood_request_start")
public func cRequestStart(_ store: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?,
                          _ body: UnsafePointer<CChar>?, _ headerList: UnsafePointer<UnsafePointer<CChar>?>?,
                          _ completion: ood_completion?, _ payload: UnsafeMutableRawPointer?,
                          _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    startRequest("ood_request_start", store, method, url, body, headerList, completion, payload, out)
}

@_cdecl("ood_call_cancel")
public func cCallCancel(_ call: OpaquePointer?) -> ood_status {
    guard let call else { return misuse("ood_call_cancel: call is NULL") }
    CallHandle.from(call).request.cancel()
    return succeed()
}

@_cdecl("ood_call_free")
public func cCallFree(_ call: OpaquePointer?) {
    guard let call else { return }
    Unmanaged<CallHandle>.fromOpaque(UnsafeRawPointer(call)).release()
}
