extension CSDLReader {
    /// Deepest expression nesting kept; libxml2 itself stops at 256 element levels.
    private static let maximumExpressionDepth = 100

    /// `<Annotation Term="..." [Qualifier] [constant attribute]>` with an optional expression child.
    func readAnnotation() throws(ODataError) -> Annotation {
        var annotation = Annotation(term: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            guard attribute.namespaceKind == .none else { return }
            switch attribute.csdlName {
            case .term: annotation.term = sharedValue(attribute)
            case .qualifier: annotation.qualifier = attribute.value
            default:
                // The attribute notation of a constant or path expression (`String="..."`, `Bool="true"`).
                annotation.value = AnnotationExpression(kind: attribute.name, value: attribute.value)
            }
        }
        annotation.term = try required(annotation.term, "Term", of: "Annotation")
        try stream.forEachChild { () throws(ODataError) in
            if currentElement == .annotation {
                annotation.annotations.append(try readAnnotation())
            } else if annotation.value == nil {
                annotation.value = try readExpression(depth: 1)
            } else {
                throw stream.error("Annotation \(annotation.term) has more than one value")
            }
        }
        return annotation
    }

    /// `<Annotations Target="..." [Qualifier]>`.
    func readAnnotationGroup() throws(ODataError) -> AnnotationGroup {
        var group = AnnotationGroup(target: "", sourceLine: SourceLine(stream.line))
        try stream.forEachAttribute { attribute throws(ODataError) in
            guard attribute.namespaceKind == .none else { return }
            switch attribute.csdlName {
            case .target: group.target = attribute.value
            case .qualifier: group.qualifier = attribute.value
            default: break
            }
        }
        group.target = try required(group.target, "Target", of: "Annotations")
        group.annotations = try readAnnotationChildren()
        return group
    }

    /// Any expression element, kept as a tree of kind, attributes, text and children.
    private func readExpression(depth: Int) throws(ODataError) -> AnnotationExpression {
        if depth > CSDLReader.maximumExpressionDepth {
            throw stream.error("annotation expression nested more than \(CSDLReader.maximumExpressionDepth) levels deep")
        }
        var expression = AnnotationExpression(kind: stream.localName)
        try stream.forEachAttribute { attribute throws(ODataError) in
            expression.attributes.append(attribute.asData)
        }
        if stream.isEmptyElement { return expression }
        var text: String?
        // Enum members (`Org.OData.Core.V1.PermissionType/Read`) repeat by the thousand; other
        // text (descriptions) is mostly unique and not worth a table slot.
        let sharesText = expression.kind == "EnumMember"
        loop: while true {
            switch try stream.next() {
            case .elementStart: expression.children.append(try readExpression(depth: depth + 1))
            case .text:
                let piece = sharesText ? stream.textPointer.map { interner.string(cString: $0) } ?? "" : stream.text
                text = text.map { $0 + piece } ?? piece
            case .elementEnd: break loop
            case .endOfDocument: throw ODataError(.metadata, "the document ends inside an annotation", line: stream.line)
            }
        }
        if let text {
            // Whitespace between child elements is layout, not a value.
            let isLayout = !expression.children.isEmpty && text.allSatisfy { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
            if !isLayout { expression.value = text }
        }
        return expression
    }
}
