import COfflineODataHeader
@_spi(Tool) import OfflineOData

/// The service's model against the store's (issue 34): the check and the app's choice.

@_cdecl("ood_check_service")
public func cCheckService(_ store: OpaquePointer?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    guard let json else { return misuse("ood_check_service: json is NULL") }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_check_service", store)
        try handOut(try target.performAndWait(.checkService).jsonText, to: json)
    }
}

@_cdecl("ood_adopt_service_model")
public func cAdoptServiceModel(_ store: OpaquePointer?, _ choice: UnsafePointer<CChar>?,
                               _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> ood_status {
    json?.pointee = nil
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore("ood_adopt_service_model", store)
        let name = choice.map { String(cString: $0) } ?? ServiceModelChoice.uploadFirst.rawValue
        guard let chosen = ServiceModelChoice(rawValue: name) else {
            throw ODataError(.misuse, "ood_adopt_service_model: choice must be uploadFirst, rebuild or archiveRefused, not '\(name)'")
        }
        // The upload of uploadFirst batches as ood_upload does: the options' (ood_options_set_batch).
        let adoption = try target.performAndWait(.adoptServiceModel(chosen, upload: uploadOptions(of: store)))
        if let json { try handOut(adoption.jsonText, to: json) }
    }
}
