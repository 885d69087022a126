import COfflineODataHeader
@_spi(Tool) import OfflineOData

// Conflict policies and the app's resolver (issue 37, docs/CONFLICTS.md).

/// The room a C resolver has for a merged body.
private let mergedBodyCapacity = 1 << 16

/// A C resolver and its payload, called on the upload's thread.
private struct CResolver: @unchecked Sendable {
    let function: ood_conflict_resolver
    let payload: UnsafeMutableRawPointer?

    /// Hands the versions as JSON, reads the answer: a policy, or the merged body it wrote.
    func decide(_ versions: ConflictVersions) -> ConflictDecision {
        var buffer = [CChar](repeating: 0, count: mergedBodyCapacity)
        let answer = versions.jsonText.withCString { json in
            buffer.withUnsafeMutableBufferPointer { room in function(json, room.baseAddress, room.count, payload) }
        }
        switch answer {
        case Int32(OOD_CONFLICT_SERVER_WINS.rawValue): return .policy(.serverWins)
        case Int32(OOD_CONFLICT_CLIENT_WINS.rawValue): return .policy(.clientWins)
        case Int32(OOD_CONFLICT_MERGE_CHANGED_FIELDS.rawValue): return .policy(.mergeChangedFields)
        case Int32(OOD_CONFLICT_MERGED_BODY.rawValue):
            // NUL-terminated within the room, else it is not taken: archived.
            guard buffer.contains(0), let body = try? JSONValue.parse(String(cString: buffer)) else { return .policy(.archive) }
            return .merged(body)
        default: return .policy(.archive)
        }
    }
}

@_cdecl("ood_store_set_conflict_policy")
public func cStoreSetConflictPolicy(_ store: OpaquePointer?, _ entitySet: UnsafePointer<CChar>?,
                                    _ policy: UnsafePointer<CChar>?) -> ood_status {
    bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_set_conflict_policy", store)
        let name = try text("ood_store_set_conflict_policy", "policy", policy)
        guard let chosen = ConflictPolicy(named: name) else {
            throw ODataError(.misuse, "ood_store_set_conflict_policy: unknown policy '\(name)' "
                             + "(archive, serverWins, clientWins, mergeChangedFields)")
        }
        _ = try target.performAndWait(.setConflictPolicy(chosen, entitySet: entitySet.map { String(cString: $0) }))
    }
}

@_cdecl("ood_store_conflict_policies")
public func cStoreConflictPolicies(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_conflict_policies: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_conflict_policies", store)
        var writer = JSONWriter()
        writer.writeValue(try target.performAndWait(.conflictPolicies).json)
        try handOut(String(decoding: writer.bytes, as: UTF8.self), to: json)
    }
}

@_cdecl("ood_upload_resolving")
public func cUploadResolving(_ store: OpaquePointer?, _ policy: UnsafePointer<CChar>?, _ resolver: ood_conflict_resolver?,
                             _ payload: UnsafeMutableRawPointer?,
                             _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_upload_resolving: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireServiceStore("ood_upload_resolving", store)
        var options = uploadOptions(of: store)
        if let policy {
            let name = String(cString: policy)
            guard let chosen = ConflictPolicy(named: name) else {
                throw ODataError(.misuse, "ood_upload_resolving: unknown policy '\(name)' (archive, serverWins, clientWins, mergeChangedFields)")
            }
            options.conflictPolicy = chosen
        }
        if let resolver {
            let called = CResolver(function: resolver, payload: payload)
            options.conflictResolver = { called.decide($0) }
        }
        let outcome = try target.performAndWait(.upload(options))
        try handOut("{\"sent\":\(outcome.sent),\"archived\":\(outcome.archived),\"inDoubt\":\(outcome.inDoubt),"
                    + "\"discarded\":\(outcome.discarded),\"compacted\":\(outcome.compacted)}", to: json)
    }
}

@_cdecl("ood_discarded_changes")
public func cDiscardedChanges(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_discarded_changes: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_discarded_changes", store)
        try handOut(ConflictDetail.jsonText(try target.performAndWait(.discardedChanges)), to: json)
    }
}

@_cdecl("ood_discarded_changes_clear")
public func cDiscardedChangesClear(_ store: OpaquePointer?, _ cleared: UnsafeMutablePointer<Int>?) -> ood_status {
    cleared?.pointee = 0
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_discarded_changes_clear", store)
        let count = try target.performAndWait(.clearDiscardedChanges)
        cleared?.pointee = count
    }
}
