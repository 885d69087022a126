@_spi(Tool) import OfflineOData

@_cdecl("ood_version")
public func cVersion() -> UnsafePointer<CChar>? {
    UnsafePointer(staticCString(OfflineODataVersion.string))
}

@_cdecl("ood_version_number")
public func cVersionNumber() -> Int32 {
    Int32(OfflineODataVersion.number)
}
