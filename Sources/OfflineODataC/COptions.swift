import COfflineODataHeader
@_spi(Tool) import OfflineOData

/// What an `ood_options *` points to: the Swift options being filled in, copied when a store opens.
final class OptionsHandle {
    var options = ODataStore.Options()
    /// How `ood_upload` sends the queue: nil for one request at a time, else in `$batch` requests.
    var uploadBatching: UploadBatching?

    static func from(_ pointer: OpaquePointer) -> OptionsHandle {
        Unmanaged<OptionsHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

/// Runs a setter on `options` after checking it and its text arguments for NULL.
private func setting(_ function: String, _ options: OpaquePointer?, _ texts: [UnsafePointer<CChar>?],
                     _ body: (OptionsHandle, [String]) throws(ODataError) -> Void) -> ood_status {
    guard let options else { return misuse("\(function): options is NULL") }
    var strings: [String] = []
    for (index, text) in texts.enumerated() {
        guard let text else { return misuse("\(function): argument \(index + 2) is NULL") }
        strings.append(String(cString: text))
    }
    return bridge { () throws(ODataError) in try body(OptionsHandle.from(options), strings) }
}

@_cdecl("ood_options_new")
public func cOptionsNew(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    guard let out else { return misuse("ood_options_new: out is NULL") }
    out.pointee = OpaquePointer(Unmanaged.passRetained(OptionsHandle()).toOpaque())
    return succeed()
}

@_cdecl("ood_options_free")
public func cOptionsFree(_ options: OpaquePointer?) {
    guard let options else { return }
    Unmanaged<OptionsHandle>.fromOpaque(UnsafeRawPointer(options)).release()
}

@_cdecl("ood_options_set_path")
public func cOptionsSetPath(_ options: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_path", options, [path]) { handle, texts throws(ODataError) in
        guard !texts[0].isEmpty else { throw ODataError(.misuse, "ood_options_set_path: the path is empty") }
        handle.options.path = texts[0]
    }
}

@_cdecl("ood_options_set_service_root")
public func cOptionsSetServiceRoot(_ options: OpaquePointer?, _ root: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_service_root", options, [root]) { handle, texts throws(ODataError) in
        try ServiceURL.checkServiceRoot(texts[0])
        handle.options.serviceRoot = texts[0]
    }
}

@_cdecl("ood_options_set_service_root_saved")
public func cOptionsSetServiceRootSaved(_ options: OpaquePointer?, _ saved: Int32) -> ood_status {
    setting("ood_options_set_service_root_saved", options, []) { handle, _ throws(ODataError) in
        handle.options.savesServiceRoot = saved != 0
    }
}

@_cdecl("ood_options_set_metadata")
public func cOptionsSetMetadata(_ options: OpaquePointer?, _ metadata: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_metadata", options, [metadata]) { handle, texts throws(ODataError) in
        handle.options.metadata = texts[0]
    }
}

@_cdecl("ood_options_add_defining_request")
public func cOptionsAddDefiningRequest(_ options: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                       _ url: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_add_defining_request", options, [name, url]) { handle, texts throws(ODataError) in
        guard !texts[0].isEmpty, !texts[1].isEmpty else {
            throw ODataError(.misuse, "ood_options_add_defining_request: the name and the URL must not be empty")
        }
        guard !handle.options.definingRequests.contains(where: { $0.name == texts[0] }) else {
            throw ODataError(.misuse, "ood_options_add_defining_request: the name '\(texts[0])' is used already")
        }
        handle.options.definingRequests.append(DefiningRequest(name: texts[0], url: texts[1]))
    }
}

/// Text `properties` is `Prop1,Prop2`: checked for form here, against the model when the store opens.
@_cdecl("ood_options_add_index")
public func cOptionsAddIndex(_ options: OpaquePointer?, _ entitySet: UnsafePointer<CChar>?,
                             _ properties: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_add_index", options, [entitySet, properties]) { handle, texts throws(ODataError) in
        let declaration: IndexDeclaration
        do {
            declaration = try IndexDeclaration(parsing: texts[0] + ":" + texts[1])
        } catch {
            throw ODataError(.misuse, "ood_options_add_index: the entity set and the properties must not be empty")
        }
        guard !declaration.properties.contains(where: \.isEmpty) else {
            throw ODataError(.misuse, "ood_options_add_index: '\(texts[1])' has an empty property name (write Prop1,Prop2)")
        }
        handle.options.indexes.append(declaration)
    }
}

@_cdecl("ood_options_set_mode")
public func cOptionsSetMode(_ options: OpaquePointer?, _ mode: Int32) -> ood_status {
    setting("ood_options_set_mode", options, []) { handle, _ throws(ODataError) in
        switch UInt32(bitPattern: mode) {
        case OOD_MODE_MIXED.rawValue: handle.options.mode = .mixed
        case OOD_MODE_ONLINE.rawValue: handle.options.mode = .online
        case OOD_MODE_OFFLINE.rawValue: handle.options.mode = .offline
        default: throw ODataError(.misuse, "ood_options_set_mode: \(mode) is not an ood_mode")
        }
    }
}

@_cdecl("ood_options_set_basic_auth")
public func cOptionsSetBasicAuth(_ options: OpaquePointer?, _ user: UnsafePointer<CChar>?,
                                 _ password: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_basic_auth", options, [user, password]) { handle, texts throws(ODataError) in
        handle.options.http.authentication = .basic(user: texts[0], password: texts[1])
    }
}

@_cdecl("ood_options_set_bearer_token")
public func cOptionsSetBearerToken(_ options: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_bearer_token", options, [token]) { handle, texts throws(ODataError) in
        handle.options.http.authentication = .bearer(token: texts[0])
    }
}

@_cdecl("ood_options_add_header")
public func cOptionsAddHeader(_ options: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                              _ value: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_add_header", options, [name, value]) { handle, texts throws(ODataError) in
        guard !texts[0].isEmpty else { throw ODataError(.misuse, "ood_options_add_header: the header name is empty") }
        do throws(ODataError) { try HTTPOptions.checkHeader(name: texts[0], value: texts[1]) } catch { throw prefixed("ood_options_add_header", error) }
        handle.options.http.headers.append(HTTPHeader(texts[0], texts[1]))
    }
}

@_cdecl("ood_options_set_timeouts")
public func cOptionsSetTimeouts(_ options: OpaquePointer?, _ connect: Double, _ request: Double) -> ood_status {
    setting("ood_options_set_timeouts", options, []) { handle, _ throws(ODataError) in
        guard connect > 0, request > 0, connect.isFinite, request.isFinite else {
            throw ODataError(.misuse, "ood_options_set_timeouts: timeouts must be above 0 seconds")
        }
        handle.options.http.connectTimeout = connect
        handle.options.http.requestTimeout = request
    }
}

@_cdecl("ood_options_set_page_size")
public func cOptionsSetPageSize(_ options: OpaquePointer?, _ pageSize: Int32) -> ood_status {
    setting("ood_options_set_page_size", options, []) { handle, _ throws(ODataError) in
        guard pageSize >= 0 else { throw ODataError(.misuse, "ood_options_set_page_size: \(pageSize) is negative") }
        handle.options.pageSize = pageSize == 0 ? nil : Int(pageSize)
    }
}

@_cdecl("ood_options_set_accept_empty_file")
public func cOptionsSetAcceptEmptyFile(_ options: OpaquePointer?, _ accept: Int32) -> ood_status {
    setting("ood_options_set_accept_empty_file", options, []) { handle, _ throws(ODataError) in
        handle.options.acceptsEmptyFile = accept != 0
    }
}

@_cdecl("ood_options_set_queue_compaction")
public func cOptionsSetQueueCompaction(_ options: OpaquePointer?, _ enabled: Int32) -> ood_status {
    setting("ood_options_set_queue_compaction", options, []) { handle, _ throws(ODataError) in
        handle.options.compactsUploadQueue = enabled != 0
    }
}

@_cdecl("ood_options_set_batch")
public func cOptionsSetBatch(_ options: OpaquePointer?, _ batchSize: Int32, _ groupByTransaction: Int32) -> ood_status {
    setting("ood_options_set_batch", options, []) { handle, _ throws(ODataError) in
        guard batchSize >= 0 else { throw ODataError(.misuse, "ood_options_set_batch: the batch size \(batchSize) is negative") }
        guard batchSize > 0 || groupByTransaction == 0 else {
            throw ODataError(.misuse, "ood_options_set_batch: grouping by transaction needs $batch (a batch size above 0)")
        }
        handle.uploadBatching = batchSize == 0 ? nil : UploadBatching(size: Int(batchSize), groupsByTransaction: groupByTransaction != 0)
    }
}

@_cdecl("ood_options_set_tls")
public func cOptionsSetTLS(_ options: OpaquePointer?, _ verify: Int32, _ caFile: UnsafePointer<CChar>?,
                           _ caPath: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_set_tls", options, []) { handle, _ throws(ODataError) in
        handle.options.http.verifyTLS = verify != 0
        handle.options.http.caFile = caFile.map { String(cString: $0) }
        handle.options.http.caPath = caPath.map { String(cString: $0) }
    }
}

@_cdecl("ood_options_add_cookie")
public func cOptionsAddCookie(_ options: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                              _ value: UnsafePointer<CChar>?) -> ood_status {
    setting("ood_options_add_cookie", options, [name, value]) { handle, texts throws(ODataError) in
        guard !texts[0].isEmpty else { throw ODataError(.misuse, "ood_options_add_cookie: the cookie name is empty") }
        do throws(ODataError) { try HTTPOptions.checkCookie(name: texts[0], value: texts[1]) } catch { throw prefixed("ood_options_add_cookie", error) }
        handle.options.http.cookies.append(HTTPHeader(texts[0], texts[1]))
    }
}

@_cdecl("ood_options_set_limits")
public func cOptionsSetLimits(_ options: OpaquePointer?, _ maxResponseSize: Int64, _ maxPages: Int64) -> ood_status {
    setting("ood_options_set_limits", options, []) { handle, _ throws(ODataError) in
        guard maxResponseSize >= 0, maxPages >= 0 else {
            throw ODataError(.misuse, "ood_options_set_limits: a limit is negative (0 keeps the default)")
        }
        let defaults = HTTPOptions()
        handle.options.http.maximumResponseSize = maxResponseSize == 0 ? defaults.maximumResponseSize : Int(maxResponseSize)
        handle.options.http.maximumPages = maxPages == 0 ? defaults.maximumPages : Int(maxPages)
    }
}

@_cdecl("ood_options_set_limit")
public func cOptionsSetLimit(_ options: OpaquePointer?, _ limit: ood_limit, _ value: Int64) -> ood_status {
    setting("ood_options_set_limit", options, []) { handle, _ throws(ODataError) in
        guard value >= 0 else { throw ODataError(.misuse, "ood_options_set_limit: the value is negative (0 keeps the default)") }
        let chosen = Int(value)
        let http = HTTPOptions()
        let request = LocalReader.defaultParserLimits
        // Changed on a copy: a refused value leaves the options as they were.
        var wanted = handle.options
        switch limit {
        case OOD_LIMIT_RESPONSE_SIZE: wanted.http.maximumResponseSize = value == 0 ? http.maximumResponseSize : chosen
        case OOD_LIMIT_PAGES: wanted.http.maximumPages = value == 0 ? http.maximumPages : chosen
        case OOD_LIMIT_METADATA_SIZE: wanted.http.maximumMetadataSize = value == 0 ? http.maximumMetadataSize : chosen
        case OOD_LIMIT_MESSAGE_LENGTH: wanted.http.maximumMessageLength = value == 0 ? http.maximumMessageLength : chosen
        case OOD_LIMIT_REQUEST_LENGTH: wanted.requestLimits.maxLength = value == 0 ? request.maxLength : chosen
        case OOD_LIMIT_REQUEST_DEPTH: wanted.requestLimits.maxDepth = value == 0 ? request.maxDepth : chosen
        case OOD_LIMIT_EXPRESSION_OPERATORS: wanted.requestLimits.maxOperators = value == 0 ? request.maxOperators : chosen
        case OOD_LIMIT_VALUE_SIZE: wanted.http.maximumValueSize = value == 0 ? http.maximumValueSize : chosen
        default: throw ODataError(.misuse, "ood_options_set_limit: \(limit.rawValue) is not a limit (see ood_limit)")
        }
        do throws(ODataError) { try wanted.requestLimits.checkForStore() } catch { throw prefixed("ood_options_set_limit", error) }
        handle.options = wanted
    }
}

/// `error` with the C function's name in front of its message.
private func prefixed(_ function: String, _ error: ODataError) -> ODataError {
    var error = error
    error.message = "\(function): \(error.message)"
    return error
}
