import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

/// What an `ood_result *` points to: an answer with its body as a NUL-terminated copy.
final class ResultHandle {
    let status: Int32
    /// The body plus a NUL, so C can use it as a string.
    let body: UnsafeMutablePointer<CChar>
    let length: Int
    let contentType: UnsafeMutablePointer<CChar>?
    /// The link to the next page of a one-page read (`ood_request_page`); nil for a whole answer.
    let nextLink: UnsafeMutablePointer<CChar>?
    /// The answer's headers for `ood_result_header`; `Content-Type` is one of them offline too.
    let headers: CHeaderValues
    /// What the answer holds (`ood_result_kind` and the names beside it).
    let kind: ood_answer_kind
    let entitySet: UnsafeMutablePointer<CChar>?
    let entityType: UnsafeMutablePointer<CChar>?
    let property: UnsafeMutablePointer<CChar>?
    let propertyType: UnsafeMutablePointer<CChar>?

    init(_ response: StoreResponse) {
        status = Int32(clamping: response.status)
        let count = response.body.count
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        response.body.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress, count > 0 { memcpy(copy, base, count) }
        }
        copy[count] = 0
        length = count
        body = copy
        contentType = strdup(response.contentType)
        nextLink = response.nextLink.flatMap { strdup($0) }
        headers = CHeaderValues(response.headers, contentType: response.contentType.isEmpty ? nil : response.contentType)
        let shape = response.shape
        kind = Self.kind(shape.kind)
        entitySet = shape.entitySet.flatMap { strdup($0) }
        entityType = shape.entityType.flatMap { strdup($0) }
        property = shape.property.flatMap { strdup($0) }
        propertyType = shape.propertyType.flatMap { strdup($0) }
    }

    deinit {
        body.deallocate()
        free(contentType)
        free(nextLink)
        free(entitySet)
        free(entityType)
        free(property)
        free(propertyType)
    }

    static func kind(_ kind: AnswerShape.Kind) -> ood_answer_kind {
        switch kind {
        case .collection: OOD_ANSWER_COLLECTION
        case .entity: OOD_ANSWER_ENTITY
        case .property: OOD_ANSWER_PROPERTY
        case .count: OOD_ANSWER_COUNT
        case .value: OOD_ANSWER_VALUE
        case .metadata: OOD_ANSWER_METADATA
        case .other: OOD_ANSWER_OTHER
        }
    }

    /// `view` pointing into this result (`ood_result_view`; `ood_get_into` when an answer spills).
    func fill(_ view: UnsafeMutablePointer<ood_answer_view>) {
        view.pointee = ood_answer_view(body: UnsafePointer(body), length: length,
                                       content_type: UnsafePointer(contentType ?? staticCString("")),
                                       kind: kind,
                                       entity_set: entitySet.map { UnsafePointer($0) },
                                       entity_type: entityType.map { UnsafePointer($0) },
                                       property: property.map { UnsafePointer($0) },
                                       property_type: propertyType.map { UnsafePointer($0) })
    }

    func retainedPointer() -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer) -> ResultHandle {
        Unmanaged<ResultHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}

@_cdecl("ood_result_status")
public func cResultStatus(_ result: OpaquePointer?) -> Int32 {
    guard let result else { return 0 }
    return ResultHandle.from(result).status
}

@_cdecl("ood_result_body")
public func cResultBody(_ result: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let result else {
        length?.pointee = 0
        return UnsafePointer(staticCString(""))
    }
    let handle = ResultHandle.from(result)
    length?.pointee = handle.length
    return UnsafePointer(handle.body)
}

@_cdecl("ood_result_content_type")
public func cResultContentType(_ result: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let result, let type = ResultHandle.from(result).contentType else { return UnsafePointer(staticCString("")) }
    return UnsafePointer(type)
}

@_cdecl("ood_result_next_link")
public func cResultNextLink(_ result: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let result, let link = ResultHandle.from(result).nextLink else { return nil }
    return UnsafePointer(link)
}

@_cdecl("ood_result_header")
public func cResultHeader(_ result: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let result, let name else { return nil }
    return ResultHandle.from(result).headers.value(name)
}

@_cdecl("ood_result_kind")
public func cResultKind(_ result: OpaquePointer?) -> ood_answer_kind {
    guard let result else { return OOD_ANSWER_OTHER }
    return ResultHandle.from(result).kind
}

@_cdecl("ood_result_entity_set")
public func cResultEntitySet(_ result: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let result, let name = ResultHandle.from(result).entitySet else { return nil }
    return UnsafePointer(name)
}

@_cdecl("ood_result_entity_type")
public func cResultEntityType(_ result: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let result, let name = ResultHandle.from(result).entityType else { return nil }
    return UnsafePointer(name)
}

@_cdecl("ood_result_property")
public func cResultProperty(_ result: OpaquePointer?, _ type: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> UnsafePointer<CChar>? {
    type?.pointee = nil
    guard let result else { return nil }
    let handle = ResultHandle.from(result)
    type?.pointee = handle.propertyType.map { UnsafePointer($0) }
    return handle.property.map { UnsafePointer($0) }
}

@_cdecl("ood_result_view")
public func cResultView(_ result: OpaquePointer?, _ view: UnsafeMutablePointer<ood_answer_view>?) -> ood_status {
    guard let view else { return misuse("ood_result_view: view is NULL") }
    guard let result else {
        view.pointee = ood_answer_view(body: UnsafePointer(staticCString("")), length: 0,
                                       content_type: UnsafePointer(staticCString("")), kind: OOD_ANSWER_OTHER,
                                       entity_set: nil, entity_type: nil, property: nil, property_type: nil)
        return misuse("ood_result_view: result is NULL")
    }
    ResultHandle.from(result).fill(view)
    return succeed()
}

@_cdecl("ood_result_free")
public func cResultFree(_ result: OpaquePointer?) {
    guard let result else { return }
    Unmanaged<ResultHandle>.fromOpaque(UnsafeRawPointer(result)).release()
}
