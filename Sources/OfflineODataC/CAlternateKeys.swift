import COfflineODataHeader
@_spi(Tool) import OfflineOData

// Alternate keys: by which a create whose key the service assigns is read back when its answer
// was lost (issue 37, docs/CONFLICTS.md "Creates in doubt").

@_cdecl("ood_store_set_alternate_key")
public func cStoreSetAlternateKey(_ store: OpaquePointer?, _ entitySet: UnsafePointer<CChar>?,
                                  _ properties: UnsafePointer<CChar>?) -> ood_status {
    bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_set_alternate_key", store)
        let set = try text("ood_store_set_alternate_key", "entity_set", entitySet)
        let list = try text("ood_store_set_alternate_key", "properties", properties)
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        if !list.isEmpty, names.contains(where: \.isEmpty) {
            throw ODataError(.misuse, "ood_store_set_alternate_key: '\(list)' has an empty property name")
        }
        _ = try target.performAndWait(.setAlternateKey(list.isEmpty ? [] : names, entitySet: set))
    }
}

@_cdecl("ood_store_alternate_keys")
public func cStoreAlternateKeys(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_store_alternate_keys: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_store_alternate_keys", store)
        let keys = try target.performAndWait(.alternateKeys)
        var writer = JSONWriter()
        writer.beginObject()
        for set in keys.keys.sorted() {
            writer.writeKey(set)
            writer.beginArray()
            for key in keys[set] ?? [] {
                writer.beginArray()
                for property in key { writer.writeString(property) }
                writer.endArray()
            }
            writer.endArray()
        }
        writer.endObject()
        try handOut(String(decoding: writer.bytes, as: UTF8.self), to: json)
    }
}
