import COfflineODataHeader
@_spi(Tool) import OfflineOData

// The questions a C caller asks a store: explain, status, the queues, the model; undo and re-download.

@_cdecl("ood_explain")
public func cExplain(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                     _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_explain: json is NULL") }
    guard let url else { return misuse("ood_explain: url is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_explain", store)
        let text = String(cString: url)
        let explanation = try target.performAndWait(.explain(url: text))
        try handOut(explanation.jsonText, to: json)
    }
}

@_cdecl("ood_store_status")
public func cStoreStatus(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_status: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_status", store)
        try handOut(try target.performAndWait(.status).jsonText, to: json)
    }
}

@_cdecl("ood_store_sync_log")
public func cStoreSyncLog(_ store: OpaquePointer?, _ limit: Int64,
                          _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_sync_log: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_sync_log", store)
        let wanted = limit < 0 ? nil : Int(limit)
        let entries = try target.performAndWait(.syncLog(limit: wanted))
        try handOut(SyncLogEntry.jsonText(entries), to: json)
    }
}

@_cdecl("ood_store_check")
public func cStoreCheck(_ store: OpaquePointer?, _ quick: Int32,
                        _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_check: json is NULL") }
    guard let store else { return misuse("ood_store_check: store is NULL") }
    return bridge { () throws(ODataError) in
        let handle = StoreHandle.from(store)
        let findings: [StoreFinding]
        if let file = handle.file {
            findings = try file.check(quick: quick != 0)
        } else {
            let target = try handle.requireStore("ood_store_check")
            findings = try target.performAndWait(.checkStore(quick: quick != 0))
        }
        try handOut(StoreFinding.jsonText(findings), to: json)
    }
}

@_cdecl("ood_error_archive")
public func cErrorArchive(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_error_archive: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_error_archive", store)
        let archive = try target.performAndWait(.errorArchive)
        try handOut(ArchivedRequest.jsonText(archive), to: json)
    }
}

@_cdecl("ood_error_archive_delete")
public func cErrorArchiveDelete(_ store: OpaquePointer?, _ id: Int64, _ deleted: UnsafeMutablePointer<Int>?) -> ood_status {
    deleted?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_error_archive_delete", store)
        let count = try target.performAndWait(.deleteArchivedRequests(id: id < 0 ? nil : id))
        deleted?.pointee = count
    }
}

@_cdecl("ood_error_archive_requeue")
public func cErrorArchiveRequeue(_ store: OpaquePointer?, _ id: Int64, _ body: UnsafePointer<CChar>?,
                                 _ requeued: UnsafeMutablePointer<Int>?) -> ood_status {
    requeued?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_error_archive_requeue", store)
        let newBody = body.map { String(cString: $0) }
        let count = try target.performAndWait(.requeueArchivedRequest(id: id, body: newBody))
        requeued?.pointee = count
    }
}

@_cdecl("ood_request_queue")
public func cRequestQueue(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_request_queue: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_request_queue", store)
        let queue = try target.performAndWait(.requestQueue)
        try handOut(QueuedRequest.jsonText(queue), to: json)
    }
}

@_cdecl("ood_queue_compact")
public func cQueueCompact(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_queue_compact", store)
        let compaction = try target.performAndWait(.compactQueue)
        if let json { try handOut(compaction.jsonText, to: json) }
    }
}

@_cdecl("ood_metadata")
public func cMetadata(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_metadata: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_metadata", store)
        let model = try target.performAndWait(.metadata)
        try handOut(model.summaryJSONText, to: json)
    }
}

@_cdecl("ood_undo")
public func cUndo(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                  _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_undo", store)
        let address = try text("ood_undo", "url", url)
        let outcome = try target.performAndWait(.undoPendingChanges(url: address))
        if let json { try handOut(outcome.jsonText, to: json) }
    }
}

@_cdecl("ood_redownload")
public func cRedownload(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                        _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireServiceStore("ood_redownload", store)
        let address = try text("ood_redownload", "url", url)
        let outcome = try target.performAndWait(.redownloadEntity(url: address))
        if let json { try handOut(outcome.jsonText, to: json) }
    }
}

@_cdecl("ood_create_automatic_indexes")
public func cCreateAutomaticIndexes(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_create_automatic_indexes", store)
        let made = try target.performAndWait(.createAutomaticIndexes)
        if let json {
            var writer = JSONWriter()
            StoreIndex.write(made, to: &writer)
            try handOut(String(decoding: writer.bytes, as: UTF8.self), to: json)
        }
    }
}
