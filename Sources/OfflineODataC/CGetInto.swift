import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

// `ood_get_into`: a read whose answer is copied into memory the caller owns, so a binding that
// pays for every crossing of the boundary (ctypes: a few microseconds each) makes one per read
// instead of four (request, view, copy, free), and no result is allocated and freed.

@_cdecl("ood_get_into")
public func cGetInto(_ store: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ buffer: UnsafeMutablePointer<CChar>?,
                     _ capacity: Int, _ view: UnsafeMutablePointer<ood_answer_view>?,
                     _ spill: UnsafeMutablePointer<OpaquePointer?>?) -> ood_status {
    let function = "ood_get_into"
    spill?.pointee = nil
    guard let view else { return misuse("\(function): view is NULL") }
    view.pointee = ood_answer_view(body: UnsafePointer(staticCString("")), length: 0,
                                   content_type: UnsafePointer(staticCString("")), kind: OOD_ANSWER_OTHER,
                                   entity_set: nil, entity_type: nil, property: nil, property_type: nil)
    guard let spill else { return misuse("\(function): spill is NULL") }
    guard capacity >= 0, buffer != nil || capacity == 0 else {
        return misuse("\(function): buffer is NULL with a capacity of \(capacity)")
    }
    return bridge { () throws(ODataError) in
        let target = try requireAPIStore(function, store)
        let response = try target.executeAndWait(ODataRequest(method: "GET", url: try text(function, "url", url)))
        if let buffer, AnswerCopy.copy(response, into: UnsafeMutableBufferPointer(start: buffer, count: capacity), view) {
            return
        }
        let handle = ResultHandle(response)
        handle.fill(view)
        spill.pointee = handle.retainedPointer()
    }
}

/// An answer laid out in a caller's buffer: the body and a NUL, then the content type and the
/// shape's names, each NUL-terminated; the view's pointers point at them.
private enum AnswerCopy {
    /// Copies `response` into `buffer` and fills `view`, or returns false (nothing written to
    /// `view`) when it does not fit.
    static func copy(_ response: StoreResponse, into buffer: UnsafeMutableBufferPointer<CChar>,
                     _ view: UnsafeMutablePointer<ood_answer_view>) -> Bool {
        let shape = response.shape
        let needed = response.body.count + room(response.contentType) + room(shape.entitySet) + room(shape.entityType)
            + room(shape.property) + room(shape.propertyType) + 1
        guard needed <= buffer.count, let base = buffer.baseAddress else { return false }
        response.body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress, !bytes.isEmpty { memcpy(base, source, bytes.count) }
        }
        base[response.body.count] = 0
        var cursor = Cursor(next: base + response.body.count + 1)
        let contentType = cursor.place(response.contentType)
        let entitySet = cursor.place(shape.entitySet)
        let entityType = cursor.place(shape.entityType)
        let property = cursor.place(shape.property)
        let propertyType = cursor.place(shape.propertyType)
        view.pointee = ood_answer_view(body: UnsafePointer(base), length: response.body.count,
                                       content_type: contentType, kind: ResultHandle.kind(shape.kind),
                                       entity_set: entitySet, entity_type: entityType,
                                       property: property, property_type: propertyType)
        return true
    }

    /// The bytes `text` takes with its NUL.
    private static func room(_ text: String?) -> Int { text.map { $0.utf8.count + 1 } ?? 0 }

    /// Where the next string goes; the room was counted before.
    private struct Cursor {
        var next: UnsafeMutablePointer<CChar>

        /// Writes `text` and a NUL at the cursor and returns where it starts.
        mutating func place(_ text: String) -> UnsafePointer<CChar> {
            let start = next
            var text = text
            text.withUTF8 { bytes in
                if let source = bytes.baseAddress, !bytes.isEmpty { memcpy(start, source, bytes.count) }
                next = start + bytes.count
            }
            next.pointee = 0
            next += 1
            return UnsafePointer(start)
        }

        /// `place(_:)` for a name the answer may not have (nil stays NULL).
        mutating func place(_ text: String?) -> UnsafePointer<CChar>? {
            guard let text else { return nil }
            return place(text)
        }
    }
}
