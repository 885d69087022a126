#if canImport(Glibc)
import Glibc
#endif

/// `<Annotations Target="...">`: the target path is well formed (an error otherwise), and when it
/// names an element of this document's own namespaces, that element exists (a tolerated defect). Targets in other namespaces (vocabularies,
/// referenced documents) are kept unchecked: the reader never fetches those documents.
extension ModelValidator {
    mutating func checkAnnotationTargets() throws(ODataError) {
        for schema in schemas {
            for group in schema.annotationGroups {
                try checkTarget(group, in: schema.namespace)
            }
        }
    }

    private mutating func checkTarget(_ group: AnnotationGroup, in namespace: String) throws(ODataError) {
        let target = group.target
        func reject(_ reason: String) -> ODataError { targetFault(group, reason) }
        let utf8 = target.utf8
        let shape = PlainPathShape(target)
        if !shape.hasParenthesis {
            // The common case, a plain path (`NS.Type/Property`): no parameter lists to check.
            if shape.hasEmptySegment { throw reject("has an empty path segment") }
            // Groups come in runs on members of one type (Graph: 3,667 of 4,878 targets have the
            // head of the group before): a head found fine just before needs no string of its
            // own and no lookup.
            if ModelValidator.target(target, startsWith: lastResolvedTargetHead, length: shape.firstSlash ?? utf8.count) { return }
            let head = shape.firstSlash.map { String(target[..<utf8.index(utf8.startIndex, offsetBy: $0)]) } ?? target
            try checkHead(head, of: group, in: namespace)
            return
        }
        var segments: [Substring] = []
        var depth = 0
        var segmentStart = target.startIndex
        for index in utf8.indices {
            switch utf8[index] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { throw reject("has an unbalanced ')'") }
            case UInt8(ascii: "/") where depth == 0:
                segments.append(target[segmentStart..<index])
                segmentStart = utf8.index(after: index)
            default: break
            }
        }
        if depth != 0 { throw reject("has an unclosed '('") }
        segments.append(target[segmentStart...])
        for segment in segments {
            if segment.isEmpty { throw reject("has an empty path segment") }
            guard let open = segment.utf8.firstIndex(of: UInt8(ascii: "(")) else { continue }
            guard segment.utf8.last == UInt8(ascii: ")") else { throw reject("has text after a parameter list") }
            let inner = segment[segment.utf8.index(after: open)..<segment.utf8.index(before: segment.endIndex)]
            // An empty list `()` names the overload without parameters; otherwise no item may be empty.
            if !inner.isEmpty {
                for item in splitTopLevel(inner) where item.utf8.allSatisfy({ $0 == UInt8(ascii: " ") }) {
                    throw reject("has an empty parameter type in its parameter list")
                }
            }
        }
        guard let first = segments.first else { return }
        let head = first.utf8.firstIndex(of: UInt8(ascii: "(")).map { String(first[..<$0]) } ?? String(first)
        try checkHead(head, of: group, in: namespace)
    }

    private func targetFault(_ group: AnnotationGroup, _ reason: String) -> ODataError {
        fault("Annotations Target \"\(group.target)\" \(reason)", at: group.sourceLine, element: "Annotations", attribute: "Target")
    }


    /// The first segment is a qualified name; in one of the document's own namespaces it must exist.
    private mutating func checkHead(_ head: String, of group: AnnotationGroup, in namespace: String) throws(ODataError) {
        // Most groups target members of a few types and containers: a head found fine once (in
        // any schema: a qualified name means the same everywhere) is not looked up again.
        if head == lastResolvedTargetHead { return }
        if resolvedTargetHeads.contains(head) {
            lastResolvedTargetHead = head
            return
        }
        guard QualifiedNames.contains(head, UInt8(ascii: ".")) else { throw targetFault(group, "does not start with a qualified name") }
        let qualified = qualify(head, in: namespace)
        if ownNamespaces.contains(self.namespace(of: qualified)) && declarations[qualified] == nil && operationKinds[qualified] == nil {
            // SAP-generated documents annotate types they do not declare; the annotations are
            // only kept as data, so this is a tolerated defect.
            try tolerate(targetFault(group, "names \(qualified), which is not declared in the document"))
            return
        }
        resolvedTargetHeads.insert(head)
        lastResolvedTargetHead = head
    }

    /// Whether the first `length` bytes of `target` are exactly `head`'s bytes.
    private static func target(_ target: String, startsWith head: String, length: Int) -> Bool {
        guard length > 0, head.utf8.count == length, target.utf8.count >= length else { return false }
        var target = target, head = head
        return target.withUTF8 { targetBytes in
            head.withUTF8 { headBytes in
                guard let targetBase = targetBytes.baseAddress, let headBase = headBytes.baseAddress else { return false }
                return memcmp(targetBase, headBase, length) == 0
            }
        }
    }

    /// Splits at commas that are not inside parentheses (`Collection(NS.T),NS.U`).
    private func splitTopLevel(_ text: Substring) -> [Substring] {
        var items: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.utf8.indices {
            switch text.utf8[index] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                items.append(text[start..<index])
                start = text.utf8.index(after: index)
            default: break
            }
        }
        items.append(text[start...])
        return items
    }
}

/// What the common case of a target path needs to know, found in one pass over its UTF-8 bytes
/// (`String.UTF8View`'s generic searches step index by index; Graph has thousands of targets).
private struct PlainPathShape {
    /// A `(` or `)` anywhere: the path has parameter lists and takes the full check.
    var hasParenthesis = false
    /// A leading or trailing `/`, or `//`.
    var hasEmptySegment = false
    /// The byte offset of the first `/`.
    var firstSlash: Int?

    init(_ path: String) {
        var path = path
        self = path.withUTF8 { bytes in
            var shape = PlainPathShape()
            var previousWasSlash = true
            for (offset, byte) in bytes.enumerated() {
                let isSlash = byte == UInt8(ascii: "/")
                if byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") { shape.hasParenthesis = true }
                if isSlash {
                    if previousWasSlash { shape.hasEmptySegment = true }
                    if shape.firstSlash == nil { shape.firstSlash = offset }
                }
                previousWasSlash = isSlash
            }
            if previousWasSlash && !bytes.isEmpty { shape.hasEmptySegment = true }
            return shape
        }
    }

    private init() {}
}
