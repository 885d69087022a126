import COfflineODataHeader
@_spi(Tool) import OfflineOData

// Media streams (issue 35, docs/MEDIA.md): defining requests that retrieve streams, the stream
// limits, and a stream's file for a local read (its path and length: never its bytes in memory).

@_cdecl("ood_options_add_defining_request_streams")
public func cOptionsAddDefiningRequestStreams(_ options: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                              _ url: UnsafePointer<CChar>?) -> ood_status {
    let function = "ood_options_add_defining_request_streams"
    guard let options else { return misuse("\(function): options is NULL") }
    return bridge { () throws(ODataError) in
        let name = try text(function, "name", name)
        let url = try text(function, "url", url)
        guard !name.isEmpty, !url.isEmpty else { throw ODataError(.misuse, "\(function): the name and the URL must not be empty") }
        let handle = OptionsHandle.from(options)
        guard !handle.options.definingRequests.contains(where: { $0.name == name }) else {
            throw ODataError(.misuse, "\(function): the name '\(name)' is used already")
        }
        handle.options.definingRequests.append(DefiningRequest(name: name, url: url, retrievesStreams: true))
    }
}

@_cdecl("ood_options_set_stream_limits")
public func cOptionsSetStreamLimits(_ options: OpaquePointer?, _ maxStreamSize: Int64, _ maxFolderSize: Int64) -> ood_status {
    let function = "ood_options_set_stream_limits"
    guard let options else { return misuse("\(function): options is NULL") }
    return bridge { () throws(ODataError) in
        guard maxStreamSize >= 0, maxFolderSize >= 0 else {
            throw ODataError(.misuse, "\(function): a limit is negative (0 keeps the default)")
        }
        let defaults = StreamLimits()
        OptionsHandle.from(options).options.streamLimits = StreamLimits(
            maximumStreamSize: maxStreamSize == 0 ? defaults.maximumStreamSize : maxStreamSize,
            maximumFolderSize: maxFolderSize == 0 ? defaults.maximumFolderSize : maxFolderSize)
    }
}

@_cdecl("ood_stream_file")
public func cStreamFile(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                        _ path: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int64>?,
                        _ contentType: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    let function = "ood_stream_file"
    path?.pointee = nil
    contentType?.pointee = nil
    length?.pointee = 0
    guard let path else { return misuse("\(function): path is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        let address = try text(function, "url", url)
        let stream = try target.performAndWait(.streamFile(url: address))
        try handOut(stream.path, to: path)
        length?.pointee = stream.length
        if let contentType {
            do throws(ODataError) {
                try handOut(stream.contentType, to: contentType)
            } catch {
                cStringFree(path.pointee)
                path.pointee = nil
                throw error
            }
        }
    }
}

@_cdecl("ood_stream_replace")
public func cStreamReplace(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ filePath: UnsafePointer<CChar>?,
                           _ contentType: UnsafePointer<CChar>?) -> ood_status {
    let function = "ood_stream_replace"
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        let address = try text(function, "url", url)
        let path = try text(function, "file_path", filePath)
        let type = try text(function, "content_type", contentType)
        _ = try target.performAndWait(.replaceStream(url: address, contentPath: path, contentType: type))
    }
}

@_cdecl("ood_stream_create")
public func cStreamCreate(_ store: OpaquePointer?, _ entitySet: UnsafePointer<CChar>?, _ filePath: UnsafePointer<CChar>?,
                          _ contentType: UnsafePointer<CChar>?, _ properties: UnsafePointer<CChar>?,
                          _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    let function = "ood_stream_create"
    out?.pointee = nil
    guard let out else { return misuse("\(function): out is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        let set = try text(function, "entity_set", entitySet)
        let path = try text(function, "file_path", filePath)
        let type = try text(function, "content_type", contentType)
        let body = properties.map { Array(String(cString: $0).utf8) } ?? Array("{}".utf8)
        let response = try target.performAndWait(.createMedia(entitySet: set, contentPath: path, contentType: type, properties: body))
        out.pointee = ResultHandle(response).retainedPointer()
    }
}
